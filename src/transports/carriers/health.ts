import type { CarrierName } from '../../domain/carriers.ts';
import type { CarrierHealth } from '../../services/carrier-directory.ts';
import type { Clock } from '../../services/clock.ts';

/** What one line did through the carrier: its own failures and counts, shown only to the line's account. */
type LineActivity = Pick<CarrierHealth, 'lastError' | 'lastErrorAt' | 'sends' | 'events'>;

/** Lines kept at most; past it the oldest is forgotten (a line of a Twilio event is whatever Twilio signed). */
const MAX_LINES = 10_000;

/**
 * Counts what a carrier does in this process: in all (textrelay status, /metrics) and per line
 * (lines.getState), so an account sees the carrier's reachability, shared by all, beside its own
 * lines' errors and counts, never another account's.
 */
export function createHealthTracker(carrier: CarrierName, clock: Clock, scrub: (text: string) => string = (text) => text) {
  const health: CarrierHealth = { carrier, reachable: null, lastError: null, lastErrorAt: null, sends: 0, events: 0 };
  const lines = new Map<string, LineActivity>();

  function activityOf(line: string | undefined): LineActivity | undefined {
    if (line === undefined || line === '') return undefined;
    let activity = lines.get(line);
    if (!activity) {
      if (lines.size >= MAX_LINES) lines.delete(lines.keys().next().value!);
      activity = { lastError: null, lastErrorAt: null, sends: 0, events: 0 };
      lines.set(line, activity);
    }
    return activity;
  }

  return {
    /** A request to the carrier got an answer (even a refusal of one message: the carrier is there). */
    reached(): void {
      health.reachable = true;
    },
    /** A request to the carrier failed (no answer, a 5xx, bad credentials); `line` when it carried that line's message. */
    unreachable(reason: string, line?: string): void {
      health.reachable = false;
      this.failed(reason, line);
    },
    /** Something went wrong that does not say the carrier is down (a message refused); `line` when it was that line's. */
    failed(reason: string, line?: string): void {
      health.lastError = scrub(reason);
      health.lastErrorAt = clock.now();
      this.lineFailed(reason, line);
    },
    /**
     * A message of `line` failed past the carrier (a recipient's handset or network, as a status
     * report says): the line's own last error, not the carrier's, which is about reaching it.
     */
    lineFailed(reason: string, line?: string): void {
      const activity = activityOf(line);
      if (activity) {
        activity.lastError = scrub(reason);
        activity.lastErrorAt = clock.now();
      }
    },
    sent(line?: string): void {
      health.sends += 1;
      const activity = activityOf(line);
      if (activity) activity.sends += 1;
    },
    event(line?: string): void {
      health.events += 1;
      const activity = activityOf(line);
      if (activity) activity.events += 1;
    },
    /** The carrier in all; with `line`, its reachability beside that line's own errors and counts. */
    snapshot(line?: string): CarrierHealth {
      if (line === undefined) return { ...health };
      const own = lines.get(line) ?? { lastError: null, lastErrorAt: null, sends: 0, events: 0 };
      return { carrier, reachable: health.reachable, ...own };
    },
  };
}

export type HealthTracker = ReturnType<typeof createHealthTracker>;
