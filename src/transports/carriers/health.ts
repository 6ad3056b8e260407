import type { CarrierName } from '../../domain/carriers.ts';
import type { CarrierHealth } from '../../services/carrier-directory.ts';
import type { Clock } from '../../services/clock.ts';

/** Counts what a carrier does in this process, for textrelay status, /metrics and lines.getState. */
export function createHealthTracker(carrier: CarrierName, clock: Clock, scrub: (text: string) => string = (text) => text) {
  const health: CarrierHealth = { carrier, reachable: null, lastError: null, lastErrorAt: null, sends: 0, events: 0 };
  return {
    /** A request to the carrier got an answer (even a refusal of one message: the carrier is there). */
    reached(): void {
      health.reachable = true;
    },
    /** A request to the carrier failed (no answer, a 5xx, bad credentials). */
    unreachable(reason: string): void {
      health.reachable = false;
      this.failed(reason);
    },
    /** Something went wrong that does not say the carrier is down (a message refused). */
    failed(reason: string): void {
      health.lastError = scrub(reason);
      health.lastErrorAt = clock.now();
    },
    sent(): void {
      health.sends += 1;
    },
    event(): void {
      health.events += 1;
    },
    snapshot(): CarrierHealth {
      return { ...health };
    },
  };
}

export type HealthTracker = ReturnType<typeof createHealthTracker>;
