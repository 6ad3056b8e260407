/** What an attempt's answer does to its callback. */

/** What becomes of a callback after one attempt. */
export type AttemptOutcome = { kind: 'delivered' } | { kind: 'retry'; nextAttemptAt: number } | { kind: 'failed' };

/** What the receiver answered: its status (null when no answer came) and its Retry-After, if any. */
export type AttemptAnswer = { statusCode: number | null; retryAfterMs?: number | undefined };

/** ±20%: receivers that failed together should not all be retried in the same instant. */
const JITTER = 0.2;

/**
 * After attempt number `attempt` (1 for the first), answered at `now`: delivered on a 2xx, given
 * up on a 410 or once the schedule is spent, otherwise retried after the schedule's pause (with
 * jitter). `schedule` holds the pauses between attempts, so a callback gets `schedule.length + 1`
 * attempts. A Retry-After replaces the pause but never goes beyond the schedule's longest one, so a
 * receiver cannot park a callback for a year.
 */
export function outcomeOf(
  answer: AttemptAnswer,
  attempt: number,
  schedule: readonly number[],
  random: () => number,
  now: number,
): AttemptOutcome {
  const { statusCode, retryAfterMs } = answer;
  if (statusCode !== null && statusCode >= 200 && statusCode < 300) return { kind: 'delivered' };
  if (statusCode === 410) return { kind: 'failed' };
  const pause = schedule[attempt - 1];
  if (pause === undefined) return { kind: 'failed' };
  const delay =
    retryAfterMs !== undefined
      ? Math.min(Math.max(retryAfterMs, 0), Math.max(...schedule))
      : Math.round(pause * (1 - JITTER + 2 * JITTER * random()));
  return { kind: 'retry', nextAttemptAt: now + delay };
}
