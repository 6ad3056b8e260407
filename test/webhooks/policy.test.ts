import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { parseRetryAfter, parseRetrySchedule } from '../../src/domain/retry-policy.ts';
import { isPrivateAddress } from '../../src/webhooks/ssrf.ts';

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

describe('private address detection', () => {
  it.each([
    '127.0.0.1',
    '127.8.9.10',
    '10.0.0.1',
    '172.16.0.1',
    '172.31.255.254',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '::1',
    '[::1]',
    '::',
    'fd00::1',
    'fc12:3456::1',
    'fe80::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:a9fe:a9fe',
    '64:ff9b::10.0.0.1',
    '224.0.0.1',
  ])('%s is private', (address) => {
    expect(isPrivateAddress(address)).toBe(true);
  });

  it.each(['93.184.216.34', '8.8.8.8', '172.32.0.1', '100.128.0.1', '2606:4700::1111', '::ffff:8.8.8.8', 'example.com'])(
    '%s is not private',
    (address) => {
      expect(isPrivateAddress(address)).toBe(false);
    },
  );
});
