/**
 * Whether `key` names no row because PostgreSQL text cannot hold it: it has no NUL character
 * (SQLite's has), and refuses a parameter with one instead of matching nothing.
 */
export function unstorableText(key: string): boolean {
  return key.includes('\0');
}
