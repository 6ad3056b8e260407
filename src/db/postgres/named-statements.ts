import type postgres from 'postgres';

type Sql = postgres.Sql | postgres.TransactionSql;
type Work = (sql: postgres.TransactionSql) => unknown;

/**
 * The client drizzle is given: every statement with parameters runs as a named prepared statement
 * of its connection (postgres.js keeps one per query text and connection, for the connection's
 * life), where drizzle's builder would send it unnamed, which PostgreSQL parses and plans each
 * time and postgres.js describes in a round trip of its own before running it. The transactions
 * and savepoints drizzle opens through this client get a client that does the same.
 */
export function namedStatements<Client extends Sql>(client: Client): Client {
  return new Proxy(client, {
    get(target, key, receiver) {
      if (key === 'unsafe') return unsafePrepared(target);
      if (key === 'begin' || key === 'savepoint') return opening(target, key);
      return Reflect.get(target, key, receiver);
    },
  });
}

/** `unsafe` whose statements with parameters are prepared; one without stays a simple query (it may hold several statements). */
function unsafePrepared(target: Sql): postgres.Sql['unsafe'] {
  return ((query: string, parameters?: unknown[], options?: postgres.UnsafeQueryOptions) =>
    target.unsafe(
      query,
      parameters as postgres.ParameterOrJSON<never>[],
      parameters !== undefined && parameters.length > 0 ? { ...options, prepare: true } : options,
    )) as postgres.Sql['unsafe'];
}

/** `begin` or `savepoint`, whose work gets the transaction's client wrapped too; its options (a mode, a name) pass through. */
function opening(target: Sql, key: 'begin' | 'savepoint') {
  const open = (target as unknown as Record<typeof key, (...args: unknown[]) => Promise<unknown>>)[key];
  return (...args: unknown[]) => {
    const work = args.pop() as Work;
    return open(...args, (sql: postgres.TransactionSql) => work(namedStatements(sql)));
  };
}
