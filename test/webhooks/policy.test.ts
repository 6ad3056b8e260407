import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_SCHEDULE_MS, nextDelay, parseRetryAfter, parseRetrySchedule } from '../../src/domain/retry-policy.ts';

describe('retry policy', () => {
  const schedule = [5_000, 30_000, 120_000];

  it('the default schedule is the contract one', () => {
    expect(DEFAULT_RETRY_SCHEDULE_MS).toEqual([5, 30, 120, 600, 1800, 3600, 10800, 21600, 43200, 86400].map((s) => s * 1000));
    expect(parseRetrySchedule('5,30,120,600,1800,3600,10800,21600,43200,86400')).toEqual(DEFAULT_RETRY_SCHEDULE_MS);
    expect(() => parseRetrySchedule('5,,x')).toThrow();
  });

  it('follows the schedule with ±20% jitter', () => {
    expect(nextDelay(1, { kind: 'failure' }, schedule, () => 0)).toEqual({ action: 'retry', delayMs: 4_000 });
    expect(nextDelay(1, { kind: 'failure' }, schedule, () => 0.5)).toEqual({ action: 'retry', delayMs: 5_000 });
    expect(nextDelay(2, { kind: 'failure' }, schedule, () => 0.999999)).toEqual({ action: 'retry', delayMs: 36_000 });
    expect(nextDelay(3, { kind: 'failure' }, schedule, () => 0.5)).toEqual({ action: 'retry', delayMs: 120_000 });
  });

  it('gives up once the schedule is spent, or at once on 410', () => {
    expect(nextDelay(4, { kind: 'failure' }, schedule, () => 0.5)).toEqual({ action: 'give_up' });
    expect(nextDelay(1, { kind: 'gone' }, schedule, () => 0.5)).toEqual({ action: 'give_up' });
    expect(nextDelay(7, { kind: 'success' }, schedule, () => 0.5)).toEqual({ action: 'delivered' });
  });

  it('honours Retry-After without jitter, capped at the longest pause', () => {
    expect(nextDelay(1, { kind: 'failure', retryAfterMs: 60_000 }, schedule, () => 0)).toEqual({ action: 'retry', delayMs: 60_000 });
    expect(nextDelay(1, { kind: 'failure', retryAfterMs: 10 ** 9 }, schedule, () => 0)).toEqual({ action: 'retry', delayMs: 120_000 });
    expect(nextDelay(4, { kind: 'failure', retryAfterMs: 1_000 }, schedule, () => 0), 'not past the schedule').toEqual({ action: 'give_up' });
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = Date.UTC(2026, 10, 23, 12, 0, 0);
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter('Mon, 23 Nov 2026 12:01:00 GMT', now)).toBe(60_000);
    expect(parseRetryAfter('Mon, 23 Nov 2026 11:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });
});
