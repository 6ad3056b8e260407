import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatDisplayDate, isValidTimeZone, parseListingDate, toIso, toSecondsNanos } from '../../src/domain/dates.ts';

describe('formatDisplayDate', () => {
  it('formats as M/D/YY h:mm AM/PM', () => {
    expect(formatDisplayDate(Date.UTC(2026, 2, 7, 21, 5), 'UTC')).toBe('3/7/26 9:05 PM');
  });

  it('shows midnight as 12:00 AM', () => {
    expect(formatDisplayDate(Date.UTC(2026, 2, 7, 0, 0), 'UTC')).toBe('3/7/26 12:00 AM');
  });

  it('shows noon as 12:xx PM', () => {
    expect(formatDisplayDate(Date.UTC(2026, 2, 7, 12, 0), 'UTC')).toBe('3/7/26 12:00 PM');
    expect(formatDisplayDate(Date.UTC(2026, 2, 7, 12, 34), 'UTC')).toBe('3/7/26 12:34 PM');
  });

  it('pads minutes but not month, day or hour', () => {
    expect(formatDisplayDate(Date.UTC(2026, 0, 2, 3, 4), 'UTC')).toBe('1/2/26 3:04 AM');
    expect(formatDisplayDate(Date.UTC(2025, 11, 31, 23, 59), 'UTC')).toBe('12/31/25 11:59 PM');
  });

  it('ignores seconds (truncates, does not round)', () => {
    expect(formatDisplayDate(Date.UTC(2026, 2, 7, 21, 5, 59, 999), 'UTC')).toBe('3/7/26 9:05 PM');
  });

  it('uses a two-digit year', () => {
    expect(formatDisplayDate(Date.UTC(2000, 0, 1, 1, 0), 'UTC')).toBe('1/1/00 1:00 AM');
    expect(formatDisplayDate(Date.UTC(2109, 6, 4, 13, 0), 'UTC')).toBe('7/4/09 1:00 PM');
  });

  it('shifts into America/New_York (EST, UTC-5) before the DST change', () => {
    expect(formatDisplayDate(Date.UTC(2026, 2, 7, 21, 5), 'America/New_York')).toBe('3/7/26 4:05 PM');
  });

  it('shifts into America/New_York (EDT, UTC-4) after the DST change', () => {
    // DST starts 2026-03-08 in the US.
    expect(formatDisplayDate(Date.UTC(2026, 2, 9, 21, 5), 'America/New_York')).toBe('3/9/26 5:05 PM');
  });

  it('crosses the date (and year) boundary when shifting', () => {
    expect(formatDisplayDate(Date.UTC(2026, 0, 1, 3, 0), 'America/New_York')).toBe('12/31/25 10:00 PM');
    expect(formatDisplayDate(Date.UTC(2026, 2, 7, 21, 5), 'Asia/Tokyo')).toBe('3/8/26 6:05 AM');
    expect(formatDisplayDate(Date.UTC(2026, 2, 7, 21, 5), 'Asia/Kolkata')).toBe('3/8/26 2:35 AM');
  });

  it('gives the same answer on repeated calls (formatter cache)', () => {
    const t = Date.UTC(2026, 2, 7, 21, 5);
    expect(formatDisplayDate(t, 'Europe/Paris')).toBe('3/7/26 10:05 PM');
    expect(formatDisplayDate(t, 'Europe/Paris')).toBe('3/7/26 10:05 PM');
    expect(formatDisplayDate(t, 'UTC')).toBe('3/7/26 9:05 PM');
  });

  it('throws for an unknown time zone', () => {
    expect(() => formatDisplayDate(0, 'Nope/Zone')).toThrow(RangeError);
  });

  it('always matches the M/D/YY h:mm AM|PM shape (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: Date.UTC(1970, 0, 1), max: Date.UTC(2099, 11, 31) }),
        fc.constantFrom('UTC', 'America/New_York', 'Asia/Kolkata', 'Pacific/Auckland'),
        (epochMs, zone) => {
          expect(formatDisplayDate(epochMs, zone)).toMatch(/^(1[0-2]|[1-9])\/([1-9]|[12]\d|3[01])\/\d{2} (1[0-2]|[1-9]):[0-5]\d (AM|PM)$/);
        },
      ),
    );
  });
});

describe('isValidTimeZone', () => {
  it.each([['UTC'], ['America/New_York'], ['Europe/London'], ['Asia/Kolkata'], ['Etc/GMT+5']])('%s is valid', (zone) => {
    expect(isValidTimeZone(zone)).toBe(true);
  });

  it.each([['Nope/Zone'], [''], ['America/Nowhere'], ['+25:00']])('%j is invalid', (zone) => {
    expect(isValidTimeZone(zone)).toBe(false);
  });

  it('stays invalid when asked twice (a failure is not cached as valid)', () => {
    expect(isValidTimeZone('Nope/Zone')).toBe(false);
    expect(isValidTimeZone('Nope/Zone')).toBe(false);
  });
});

describe('toIso', () => {
  it('gives ISO 8601 in UTC with milliseconds', () => {
    expect(toIso(Date.UTC(2026, 2, 7, 21, 5, 9, 123))).toBe('2026-03-07T21:05:09.123Z');
    expect(toIso(0)).toBe('1970-01-01T00:00:00.000Z');
  });

  it('equals toISOString for any time, including before 1970, past 9999 and one day after another', () => {
    const maxTime = 8.64e15;
    const time = fc.oneof(
      fc.integer({ min: -maxTime, max: maxTime }),
      fc.integer({ min: Date.UTC(2026, 0, 1), max: Date.UTC(2026, 0, 3) }),
    );
    fc.assert(
      fc.property(fc.array(time, { minLength: 1, maxLength: 5 }), (times) => {
        for (const ms of times) expect(toIso(ms)).toBe(new Date(ms).toISOString());
      }),
      { numRuns: 2000 },
    );
    for (const ms of [-1, -86_400_000, -86_400_001, 86_399_999, 253402300799999, 253402300800000, -62167219200001])
      expect(toIso(ms)).toBe(new Date(ms).toISOString());
  });

  it('throws RangeError for a time Date cannot hold, as toISOString does', () => {
    expect(() => toIso(Number.NaN)).toThrow(RangeError);
    expect(() => toIso(8.64e15 + 1)).toThrow(RangeError);
  });
});

describe('toSecondsNanos', () => {
  it('splits milliseconds into seconds and nanoseconds', () => {
    expect(toSecondsNanos(1700000000123)).toStrictEqual({ _seconds: 1700000000, _nanoseconds: 123000000 });
  });

  it('handles whole seconds and zero', () => {
    expect(toSecondsNanos(1700000000000)).toStrictEqual({ _seconds: 1700000000, _nanoseconds: 0 });
    expect(toSecondsNanos(0)).toStrictEqual({ _seconds: 0, _nanoseconds: 0 });
    expect(toSecondsNanos(999)).toStrictEqual({ _seconds: 0, _nanoseconds: 999000000 });
  });

  it('round-trips and keeps nanoseconds in [0, 1e9) for any integer epoch (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: -8.64e15, max: 8.64e15 }), (epochMs) => {
        const { _seconds, _nanoseconds } = toSecondsNanos(epochMs);
        expect(Number.isInteger(_seconds)).toBe(true);
        expect(Number.isInteger(_nanoseconds)).toBe(true);
        expect(_nanoseconds).toBeGreaterThanOrEqual(0);
        expect(_nanoseconds).toBeLessThan(1e9);
        expect(_nanoseconds % 1_000_000).toBe(0);
        expect(_seconds * 1000 + _nanoseconds / 1_000_000).toBe(epochMs);
      }),
    );
  });
});

describe('parseListingDate', () => {
  it('parses "YYYY-MM-DD HH:MM:SS" as UTC', () => {
    expect(parseListingDate('2026-03-07 21:05:09')).toBe(Date.UTC(2026, 2, 7, 21, 5, 9));
  });

  it('accepts the edges of the clock and calendar', () => {
    expect(parseListingDate('2026-03-07 00:00:00')).toBe(Date.UTC(2026, 2, 7, 0, 0, 0));
    expect(parseListingDate('2026-03-07 23:59:59')).toBe(Date.UTC(2026, 2, 7, 23, 59, 59));
    expect(parseListingDate('2026-12-31 23:59:59')).toBe(Date.UTC(2026, 11, 31, 23, 59, 59));
    expect(parseListingDate('2026-01-01 00:00:00')).toBe(Date.UTC(2026, 0, 1));
    expect(parseListingDate('1970-01-01 00:00:00')).toBe(0);
    expect(parseListingDate('2024-02-29 12:00:00')).toBe(Date.UTC(2024, 1, 29, 12)); // leap year
    expect(parseListingDate('2000-02-29 12:00:00')).toBe(Date.UTC(2000, 1, 29, 12)); // 400-year leap
  });

  it.each([
    ['2026-02-31 00:00:00'], // no such day
    ['2026-02-29 00:00:00'], // not a leap year
    ['1900-02-29 00:00:00'], // century, not a leap year
    ['2026-04-31 00:00:00'],
    ['2026-13-01 00:00:00'],
    ['2026-00-10 00:00:00'],
    ['2026-03-00 00:00:00'],
    ['2026-03-32 00:00:00'],
    ['2026-03-07 24:00:00'],
    ['2026-03-07 23:60:00'],
    ['2026-03-07 23:59:60'],
    ['2026-03-07T21:05:09'], // ISO 'T' separator is not the listing format
    ['2026-03-07T21:05:09Z'],
    ['2026-03-07 21:05:09Z'],
    ['2026-03-07 21:05:09.123'],
    ['2026-03-07 21:05'],
    ['2026-03-07'],
    ['2026-3-7 21:05:09'],
    [' 2026-03-07 21:05:09'],
    ['2026-03-07 21:05:09 '],
    ['2026-03-07  21:05:09'],
    ['26-03-07 21:05:09'],
    ['yesterday'],
    [''],
  ])('rejects %j', (raw) => {
    expect(parseListingDate(raw)).toBeNull();
  });

  it('parses exactly the instant that the formatted string names (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: Date.UTC(1000, 0, 1), max: Date.UTC(9999, 11, 31, 23, 59, 59) }), (epochMs) => {
        const wholeSecond = Math.floor(epochMs / 1000) * 1000;
        const raw = new Date(wholeSecond).toISOString().slice(0, 19).replace('T', ' ');
        expect(parseListingDate(raw)).toBe(wholeSecond);
      }),
    );
  });
});

describe('parseListingDate with years below 100', () => {
  it('keeps the year literally instead of reading it as 19xx', () => {
    const expected = new Date(0);
    expected.setUTCFullYear(50, 0, 1);
    expect(parseListingDate('0050-01-01 00:00:00')).toBe(expected.getTime());
  });
});
