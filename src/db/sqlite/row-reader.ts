import { Column, getTableColumns, type Table } from 'drizzle-orm';
import { toSnakeCase } from 'drizzle-orm/casing';

/**
 * A table's rows read as arrays (better-sqlite3's `raw()`) and turned into drizzle's row objects by
 * decoders chosen once: drizzle's own mapper looks up each field's decoder and path on every row,
 * which costs a lookup by key more than SQLite takes to find the row.
 */
export function rowReader<T extends Table>(table: T) {
  const columns = Object.entries(getTableColumns(table)) as [string, Column][];
  const keys = columns.map(([key]) => key);
  // Text and plain integers come back as stored; booleans, JSON and the like have a decoder of their own.
  const decoders = columns.map(([, column]) =>
    column.mapFromDriverValue === Column.prototype.mapFromDriverValue ? undefined : (value: unknown) => column.mapFromDriverValue(value),
  );
  const names = columns.map(([key, column]) => (column.keyAsName ? toSnakeCase(key) : column.name));

  return {
    /** Every column as a select list (of `alias`'s when given), in the order `read` takes them. */
    selectList(alias?: string): string {
      return names.map((name) => (alias === undefined ? name : `${alias}.${name}`)).join(', ');
    },
    read(values: readonly unknown[]): T['$inferSelect'] {
      const row: Record<string, unknown> = {};
      for (let i = 0; i < keys.length; i += 1) {
        const value = values[i];
        const decode = decoders[i];
        row[keys[i]!] = value === null || decode === undefined ? value : decode(value);
      }
      return row as T['$inferSelect'];
    },
  };
}
