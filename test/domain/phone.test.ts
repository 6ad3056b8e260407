import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkPhoneNumber, formatDisplayPhone } from '../../src/domain/phone.ts';

describe('checkPhoneNumber: accepted numbers', () => {
  it.each([
    ['+14155550100', '+14155550100'],
    ['+447911123456', '+447911123456'],
    ['+33612345678', '+33612345678'],
    ['+4930123456', '+4930123456'],
  ])('accepts E.164 %s', (raw, e164) => {
    expect(checkPhoneNumber(raw)).toStrictEqual({ ok: true, e164 });
  });

  it.each([
    ['+1 (415) 555-0103', '+14155550103'],
    ['+1 415 555 0103', '+14155550103'],
    ['+1-415-555-0103', '+14155550103'],
    ['+1.415.555.0103', '+14155550103'],
    ['+44 7911 123456', '+447911123456'],
    ['+33 6 12 34 56 78', '+33612345678'],
    ['  +14155550100  ', '+14155550100'],
  ])('normalizes %j to %s', (raw, e164) => {
    expect(checkPhoneNumber(raw)).toStrictEqual({ ok: true, e164 });
  });
});

describe('checkPhoneNumber: invalid numbers', () => {
  it.each([
    ['4155550100'], // national format, no '+'
    ['14155550100'], // no '+'
    ['(415) 555-0100'],
    ['+15555550100'], // 555 is not a real US area code
    ['hello'],
    [''],
    ['   '],
    ['+'],
    ['+1415555010012345'], // too long
  ])('rejects %j as invalid', (raw) => {
    expect(checkPhoneNumber(raw)).toStrictEqual({ ok: false, reason: 'invalid' });
  });
});

describe('checkPhoneNumber: emergency numbers and short codes', () => {
  it.each([
    ['911'],
    ['+911'],
    ['112'],
    ['+112'],
    ['999'],
    ['000'],
    ['12345'],
    ['123456'],
    ['+123456'],
    // separators are stripped before the short-code test
    ['+1 911'], // -> "+1911"
    ['9-1-1'],
    ['9.1.1'],
    ['(911)'],
    [' 911 '],
    ['1 1 2'],
  ])('blacklists %j', (raw) => {
    expect(checkPhoneNumber(raw)).toStrictEqual({ ok: false, reason: 'blacklisted' });
  });

  it('does not blacklist 2-digit or 7-digit strings (they are merely invalid)', () => {
    expect(checkPhoneNumber('11')).toStrictEqual({ ok: false, reason: 'invalid' });
    expect(checkPhoneNumber('1234567')).toStrictEqual({ ok: false, reason: 'invalid' });
    expect(checkPhoneNumber('+1234567')).toStrictEqual({ ok: false, reason: 'invalid' });
  });

  it('blacklists every 3-6 digit string, with or without a leading +', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: 3, maxLength: 6 }), fc.boolean(), (digits, plus) => {
        expect(checkPhoneNumber(`${plus ? '+' : ''}${digits}`)).toStrictEqual({
          ok: false,
          reason: 'blacklisted',
        });
      }),
    );
  });
});

describe('checkPhoneNumber: properties', () => {
  const valid = ['+14155550100', '+447911123456', '+33612345678', '+4930123456'];

  it('inserting separators between digits never changes the accepted E.164', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...valid),
        fc.array(fc.constantFrom('', ' ', '-', '.'), { minLength: 20, maxLength: 20 }),
        (e164, seps) => {
          const digits = e164.slice(1).split('');
          const spaced = `+${digits.map((d, i) => d + (i < digits.length - 1 ? seps[i] : '')).join('')}`;
          expect(checkPhoneNumber(spaced)).toStrictEqual({ ok: true, e164 });
        },
      ),
    );
  });

  it('an accepted result is canonical: checking it again gives the same answer', () => {
    for (const raw of ['+1 (415) 555-0103', '+44 7911 123456', '+33 6 12 34 56 78']) {
      const first = checkPhoneNumber(raw);
      expect(first.ok).toBe(true);
      if (first.ok) {
        expect(first.e164).toMatch(/^\+\d{8,15}$/);
        expect(checkPhoneNumber(first.e164)).toStrictEqual(first);
      }
    }
  });
});

describe('formatDisplayPhone', () => {
  it('formats a US number internationally', () => {
    expect(formatDisplayPhone('+14155550100')).toBe('+1 415 555 0100');
  });

  it('formats other countries internationally', () => {
    expect(formatDisplayPhone('+447911123456')).toBe('+44 7911 123456');
    expect(formatDisplayPhone('+33612345678')).toBe('+33 6 12 34 56 78');
  });

  it('falls back to the input when it cannot be parsed', () => {
    expect(formatDisplayPhone('hello')).toBe('hello');
    expect(formatDisplayPhone('')).toBe('');
  });
});

describe('checkPhoneNumber: remembered answers', () => {
  // More distinct numbers than are remembered (20,000): the memory fills, is forgotten, and fills again.
  const subscribers = Array.from({ length: 25_000 }, (_, i) => String(2_000_000 + i));

  it('answers each number with its own E.164, asked once, again, and again after the memory was forgotten', () => {
    for (let round = 0; round < 2; round += 1) {
      for (const subscriber of subscribers) {
        const spaced = `+1 415 ${subscriber.slice(0, 3)} ${subscriber.slice(3)}`;
        expect(checkPhoneNumber(spaced)).toStrictEqual({ ok: true, e164: `+1415${subscriber}` });
        expect(checkPhoneNumber(`+1415${subscriber}`)).toStrictEqual({ ok: true, e164: `+1415${subscriber}` });
      }
    }
    expect(checkPhoneNumber('911')).toStrictEqual({ ok: false, reason: 'blacklisted' });
    expect(checkPhoneNumber('+15555550100')).toStrictEqual({ ok: false, reason: 'invalid' });
  });

  it('checks inputs too long to be remembered each time', () => {
    const padding = ' '.repeat(40);
    expect(checkPhoneNumber(`${padding}+1 415 555 0103`)).toStrictEqual({ ok: true, e164: '+14155550103' });
    expect(checkPhoneNumber(`${padding}+1 415 555 0104`)).toStrictEqual({ ok: true, e164: '+14155550104' });
    expect(checkPhoneNumber(`${padding}+1 555 555 0104`)).toStrictEqual({ ok: false, reason: 'invalid' });
  });
});
