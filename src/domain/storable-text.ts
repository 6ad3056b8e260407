/**
 * Text both backends store alike. PostgreSQL refuses the NUL character in text and in JSON, and
 * half of a UTF-16 surrogate pair is not Unicode at all (UTF-8 cannot hold it, PostgreSQL's JSON
 * refuses its escape). The API refuses such text (services/validation.ts); what a carrier reports
 * has already happened on a phone, so it is kept with each such character replaced instead.
 */

/** An unpaired surrogate: a high half not followed by a low one, or a low half not preceded by a high one. */
export const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

const UNSTORABLE = new RegExp(`\\u0000|${LONE_SURROGATE.source}`, 'g');

/** U+FFFD, Unicode's mark for "a character that could not be represented", as a UTF-8 decoder puts it for bad bytes. */
export const REPLACEMENT_CHARACTER = '\ufffd';

/** `text` with every NUL and unpaired surrogate replaced by U+FFFD; any other text unchanged. */
export function storableText(text: string): string {
  return text.replace(UNSTORABLE, REPLACEMENT_CHARACTER);
}

function isPlainObject(value: object): value is Record<string, unknown> {
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/**
 * `value` with `storableText` applied to every string in it, in arrays and plain objects (keys
 * too); other objects (a Set, a Buffer) are kept as they are. Nothing to replace: `value` itself,
 * for this runs on every event a carrier reports.
 */
export function withStorableText<T>(value: T): T {
  if (typeof value === 'string') return storableText(value) as T;
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    const items = value.map(withStorableText);
    return (items.some((item, index) => item !== value[index]) ? items : value) as T;
  }
  if (!isPlainObject(value)) return value;
  const entries = Object.entries(value);
  const stored = entries.map(([key, item]) => [storableText(key), withStorableText(item)] as const);
  const changed = stored.some(([key, item], index) => key !== entries[index]![0] || item !== entries[index]![1]);
  return (changed ? Object.fromEntries(stored) : value) as T;
}
