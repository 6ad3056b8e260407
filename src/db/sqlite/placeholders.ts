import { type Placeholder, sql } from 'drizzle-orm';

/** `{ key: sql.placeholder('key') }` for each key, to prepare an insert of whole rows once. */
export function placeholdersFor<K extends string>(keys: readonly K[]): Record<K, Placeholder<K>> {
  return Object.fromEntries(keys.map((key) => [key, sql.placeholder(key)])) as Record<K, Placeholder<K>>;
}

/**
 * A bound value that SQLite plans without. When a bare parameter is a LIMIT, or is compared with
 * a column that a partial index's WHERE names, SQLite (3.4x) reads the bound value while planning
 * and marks the statement as depending on it: every new binding then re-parses and re-plans the
 * statement at its next step, which costs more than the lookup itself. `+?` is the
 * same value to the engine, but not a bare parameter, so the statement is compiled once (SQL
 * written by hand says `+@name`). drizzle types `.limit()` as taking a number or a placeholder;
 * it embeds any SQL it is given.
 */
export function unplannedParam(value: Placeholder | number): Placeholder {
  return sql`+${value}` as unknown as Placeholder;
}
