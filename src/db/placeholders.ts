import { sql, type Placeholder } from 'drizzle-orm';

/** `{ key: sql.placeholder('key') }` for each key, to prepare an insert of whole rows once. */
export function placeholdersFor<K extends string>(keys: readonly K[]): Record<K, Placeholder<K>> {
  return Object.fromEntries(keys.map((key) => [key, sql.placeholder(key)])) as Record<K, Placeholder<K>>;
}
