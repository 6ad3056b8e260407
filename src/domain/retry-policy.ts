/**
 * When to try a webhook delivery again (contract section 7). Pure: the schedule is data and the
 * randomness is passed in, so every branch is testable without timers.
 */

/** The contract's default: 5 s, 30 s, 2 min, 10 min, 30 min, 1 h, 3 h, 6 h, 12 h, 24 h. */
export const DEFAULT_RETRY_SCHEDULE_MS: readonly number[] = [5, 30, 120, 600, 1800, 3600, 10800, 21600, 43200, 86400].map(
  (seconds) => seconds * 1000,
);

/** ±20%: receivers that failed together should not all be retried in the same instant. */
const JITTER = 0.2;

/** `TEXTRELAY_WEBHOOK_RETRY_SCHEDULE` ("5,30,120", seconds) as milliseconds. */
export function parseRetrySchedule(seconds: string): number[] {
  const delays = seconds.split(',').map((part) => Number(part.trim()) * 1000);
  if (delays.length === 0 || delays.some((delay) => !Number.isFinite(delay) || delay < 0)) {
    throw new Error(`Invalid retry schedule: ${seconds}`);
  }
  return delays;
}

/** What one attempt produced, as far as retrying is concerned. */
export type AttemptResult =
  | { kind: 'success' }
  /** 410 Gone: the receiver says this endpoint will never take it. */
  | { kind: 'gone' }
  | { kind: 'failure'; retryAfterMs?: number | undefined };

export type RetryDecision = { action: 'delivered' } | { action: 'give_up' } | { action: 'retry'; delayMs: number };

/**
 * After attempt number `attempt` (1 for the first), what to do. The schedule holds the pauses
 * between attempts, so a delivery gets `schedule.length + 1` attempts before it fails. A
 * Retry-After is honoured in place of the schedule's pause but never beyond its longest pause,
 * so a receiver cannot park a delivery for a year.
 */
export function nextDelay(attempt: number, result: AttemptResult, schedule: readonly number[], random: () => number): RetryDecision {
  if (result.kind === 'success') return { action: 'delivered' };
  if (result.kind === 'gone') return { action: 'give_up' };
  const pause = schedule[attempt - 1];
  if (pause === undefined) return { action: 'give_up' };
  if (result.retryAfterMs !== undefined) {
    return { action: 'retry', delayMs: Math.min(Math.max(result.retryAfterMs, 0), Math.max(...schedule)) };
  }
  return { action: 'retry', delayMs: Math.round(pause * (1 - JITTER + 2 * JITTER * random())) };
}

/** A Retry-After header (delta-seconds or an HTTP date) as milliseconds from `now`, or undefined when absent or unreadable. */
export function parseRetryAfter(header: string | undefined, now: number): number | undefined {
  if (header === undefined) return undefined;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(at - now, 0);
}
