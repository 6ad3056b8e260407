/**
 * JSON written by hand for the listings, the largest answers: one template per record costs less
 * than building the record's object and walking it with JSON.stringify. Every function here
 * writes exactly what JSON.stringify writes for the same value.
 */

/** What JSON.stringify escapes in a string: quote, backslash, control characters, lone surrogates. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what JSON must escape.
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/** JSON.stringify(text), quoting the common string that needs no escape without its cost. */
export function jsonString(text: string): string {
  return NEEDS_ESCAPE.test(text) ? JSON.stringify(text) : `"${text}"`;
}

export function jsonNullableString(text: string | null): string {
  return text === null ? 'null' : jsonString(text);
}

export function jsonStrings(texts: readonly string[]): string {
  let json = '[';
  for (let i = 0; i < texts.length; i += 1) json += i === 0 ? jsonString(texts[i]!) : `,${jsonString(texts[i]!)}`;
  return `${json}]`;
}

/** JSON.stringify of a number or null (a number that is not finite is written null, as JSON.stringify writes it). */
export function jsonNullableNumber(value: number | null): string {
  return value === null || !Number.isFinite(value) ? 'null' : `${value}`;
}
