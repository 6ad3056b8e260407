/** The values the fuzzers put in fields, query strings, path segments and headers. */
import fc from 'fast-check';

/**
 * Strings around the limits: field caps (200, 2,048), content's 18,996 characters, and rarely
 * (they cost a megabyte each) far beyond, up to over the 1 MiB body cap.
 */
export const hugeString = fc
  .tuple(
    fc.oneof({ weight: 12, arbitrary: fc.constantFrom(201, 2_049, 18_996) }, { weight: 1, arbitrary: fc.constantFrom(100_000, 1_100_000) }),
    fc.constantFrom('x', '9', '😀', 'é', '\u0000', '%'),
  )
  .map(([length, unit]) => unit.repeat(Math.ceil(length / unit.length)));

/** Text as people and attackers write it: every code point (lone surrogates included), graphemes, look-alikes. */
export const oddText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    '\ud800',
    '\udfff\ud800',
    '\u202erev',
    '\ufeff',
    '０１２３',
    '+１ ４１５ ５５５ ０１００',
    "'; drop table messages; --",
    '<script>alert(1)</script>',
    '__proto__',
    'constructor',
    'NaN',
    '-0',
    '1e309',
    '%00',
    '../../etc/passwd',
  ),
);

/** Values of the wrong JSON type for any field. */
export const wrongType = fc.oneof(
  fc.constantFrom(null, true, false, 0, -1, 1.5, 1e308, -1e308, [], {}, [[]], { '': null }),
  fc.integer(),
  fc.double(),
  fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 4 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 }),
);

/** A valid string value spoiled the way clients spoil them: padded, re-cased, cut, doubled, encoded. */
export function spoiled(valid: string): fc.Arbitrary<string> {
  return fc.constantFrom(
    ` ${valid} `,
    valid.toUpperCase(),
    valid.toLowerCase(),
    valid.slice(0, Math.max(0, valid.length - 1)),
    valid + valid,
    `${valid}\u0000`,
    encodeURIComponent(valid),
    valid.normalize('NFD'),
  );
}

/** A path segment: never empty, "." or ".." (the URL parser would resolve those to another path, not this route). */
export const segment = fc
  .oneof(
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }),
    fc.string({ unit: 'binary', minLength: 1, maxLength: 20 }),
    hugeString.map((text) => text.slice(0, 2_000)),
  )
  .map((text) => encodeURIComponent(text.replace(/[\ud800-\udfff]/g, '?')))
  .filter((text) => !['.', '..', '%2E', '%2E%2E', '%2e', '%2e%2e', '.%2E', '%2E.'].includes(text));

/** Characters a header value may carry (Headers refuses CR, LF and NUL, and trims spaces): latin-1 without controls. */
export const headerValue = fc.oneof(
  fc.string({
    unit: fc
      .integer({ min: 0x20, max: 0xff })
      .filter((code) => code !== 0x7f)
      .map((code) => String.fromCharCode(code)),
    maxLength: 60,
  }),
  fc.constantFrom('', 'null', 'undefined', '0', '-1', 'key_', 'sk_', ' '.repeat(3), 'a'.repeat(8_000)),
);

/** Query values, already encoded: generated text, and escapes that are malformed or decode to odd bytes. */
export const queryValue = fc.oneof(
  oddText.map((text) => encodeURIComponent(text.replace(/[\ud800-\udfff]/g, '?'))),
  fc.constantFrom('%00', '%ZZ', '%', '%E0%A4%A', '%C0%80', '%ED%A0%80', '+', '%2B', '', '[]', '%5B%5D', '&', '=='),
  hugeString.map((text) => encodeURIComponent(text.slice(0, 4_000).replace(/[\ud800-\udfff]/g, '?'))),
);
