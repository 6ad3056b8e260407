import { sql } from 'drizzle-orm';

/**
 * One column of rows passed to a statement as arrays: its name, its PostgreSQL type (jsonb and
 * boolean are passed as text: an array of arrays would read as a two-dimensional one, see
 * booleanText) and its value of a row.
 */
export type ArrayColumn<Row> = readonly [name: string, type: string, value: (row: Row) => unknown];

/**
 * Rows passed as one array parameter per column and expanded by `unnest` into the relation
 * `alias` (its columns, then `ord`, each row's place from 1): the statement's text is the same for
 * any number of rows, so it is built and prepared once.
 */
export function unnestedRows<Row>(alias: string, columns: readonly ArrayColumn<Row>[]) {
  const arrays = columns.map(([name, type]) => {
    const array = sql.placeholder(`${alias}.${name}`);
    return type === 'jsonb' || type === 'boolean' ? sql`${array}::text[]::${sql.raw(type)}[]` : sql`${array}::${sql.raw(type)}[]`;
  });
  const names = [...columns.map(([name]) => name), 'ord'].join(', ');
  return {
    relation: sql`unnest(${sql.join(arrays, sql`, `)}) with ordinality as ${sql.raw(alias)} (${sql.raw(names)})`,
    /** The arrays of these rows, by placeholder. */
    values(rows: readonly Row[], into: Record<string, unknown[]>): void {
      for (const [name, type, value] of columns) {
        into[`${alias}.${name}`] = rows.map(type === 'boolean' ? (row) => booleanText(value(row)) : (row) => value(row) ?? null);
      }
    },
  };
}

/** The columns' names, comma-separated, as an insert's column list. */
export function columnNames(columns: readonly ArrayColumn<never>[]) {
  return sql.raw(columns.map(([name]) => name).join(', '));
}

/** A boolean as text: postgres.js would declare an array of booleans a boolean, which the array's cast refuses. */
const booleanText = (value: unknown): string | null => (value === null || value === undefined ? null : String(Boolean(value)));

/** A JSON column's value as unnestedRows passes it. */
export const jsonText = (value: unknown): string | null => (value === null || value === undefined ? null : JSON.stringify(value));
