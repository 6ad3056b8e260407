import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { parseRetryAfter, parseRetrySchedule } from '../../src/domain/retry-policy.ts';

describe('retry policy', () => {
  it('the default schedule is the contract one', () => {
    const contract = [5, 30, 120, 600, 1800, 3600, 10800, 21600, 43200, 86400].map((s) => s * 1000);
    expect(parseRetrySchedule(loadConfig({}).TEXTRELAY_WEBHOOK_RETRY_SCHEDULE)).toEqual(contract);
    expect(() => parseRetrySchedule('5,,x')).toThrow();
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
