import type { SQL } from 'drizzle-orm';
import type { PgDialect } from 'drizzle-orm/pg-core';
import type { PgDb } from '../db.ts';

type Prepared<Result = unknown> = { execute(values?: Record<string, unknown>): Promise<Result> };

/**
 * A statement drizzle builds once per process (its text, parameter slots and result mapping),
 * run on whichever pool or transaction a call gives: the query modules are made anew for each
 * transaction, and building a statement cost more CPU than PostgreSQL spends running it. Its
 * values are placeholders (sql.placeholder), filled at each `execute`.
 */
export function preparedOnce<Statement extends Prepared>(
  name: string,
  build: (db: PgDb) => { prepare(name: string): Statement },
): (db: PgDb) => Statement {
  let prepared: Statement | undefined;
  return (db) => {
    prepared ??= build(db).prepare(name);
    // The prepared query keeps the connection it was built on; this copy runs on `db`'s.
    return Object.assign(Object.create(prepared) as Statement, { client: sessionOf(db).client });
  };
}

/** preparedOnce of a statement written as a `sql` template; it answers postgres.js's rows, by column name. */
export function sqlPreparedOnce<Row>(name: string, build: () => SQL): (db: PgDb) => Prepared<Row[]> {
  return preparedOnce(name, (db) => ({
    prepare: (statementName) => sessionOf(db).prepareQuery(dialectOf(db).sqlToQuery(build()), undefined, statementName, false),
  }));
}

type Session = {
  client: unknown;
  prepareQuery(query: { sql: string; params: unknown[] }, fields: undefined, name: string, arrayMode: false): Prepared<never>;
};

/** drizzle's session under `db`: the postgres.js client of the pool or of one transaction. */
function sessionOf(db: PgDb): Session {
  return (db as unknown as { session: Session }).session;
}

/** drizzle's dialect under `db`, which turns a `sql` template into text and parameters. */
function dialectOf(db: PgDb): PgDialect {
  return (db as unknown as { dialect: PgDialect }).dialect;
}
