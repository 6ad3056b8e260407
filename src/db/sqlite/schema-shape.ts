import { toSnakeCase } from 'drizzle-orm/casing';
import { getTableConfig, SQLiteTable } from 'drizzle-orm/sqlite-core';
import { StartupError } from '../../startup-error.ts';
import * as schema from '../schema.ts';
import type { Db } from './connection.ts';

/** Every table of schema.ts with the names its columns have in the file (the connection writes them in snake_case). */
function expectedTables(): { name: string; columns: string[] }[] {
  return (Object.values(schema) as unknown[])
    .filter((value): value is SQLiteTable => value instanceof SQLiteTable)
    .map((table) => {
      const config = getTableConfig(table);
      return { name: config.name, columns: config.columns.map((column) => (column.keyAsName ? toSnakeCase(column.name) : column.name)) };
    });
}

/**
 * Refuses a migrated file that lacks a table or column this build reads: one changed by hand or by
 * a tool, which would otherwise fail request after request with "no such column".
 */
export function refuseMissingColumns(db: Db, file: string): void {
  const columnsOf = db.$client.prepare('select name from pragma_table_info(?)').pluck();
  const missing: string[] = [];
  for (const table of expectedTables()) {
    const present = new Set(columnsOf.all(table.name) as string[]);
    if (present.size === 0) missing.push(`table ${table.name}`);
    else missing.push(...table.columns.filter((column) => !present.has(column)).map((column) => `${table.name}.${column}`));
  }
  if (missing.length === 0) return;
  throw new StartupError(
    `${file} does not have the schema this version expects (missing ${missing.slice(0, 5).join(', ')}${missing.length > 5 ? ', ...' : ''}); ` +
      'it was changed outside textrelay: restore it from a backup or use another file',
  );
}
