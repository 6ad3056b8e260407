import type { PgDb } from '../db.ts';

type Prepared = { execute(values?: Record<string, unknown>): Promise<unknown> };

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
    return Object.assign(Object.create(prepared) as Statement, { client: clientOf(db) });
  };
}

/** The postgres.js client under drizzle's session: the pool's, or one transaction's. */
function clientOf(db: PgDb): unknown {
  return (db as unknown as { session: { client: unknown } }).session.client;
}
