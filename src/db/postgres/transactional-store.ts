import type { PgDb } from './db.ts';
import { postgresCode } from './postgres-codes.ts';

/** Each module of a store and the factory of its queries on a pool or a transaction. */
export type QueryFactories = Record<string, (db: PgDb) => object>;

/** The store those factories make: their modules, and transactions that hand the work a store of the same kind. */
export type TransactionalStore<Factories extends QueryFactories> = {
  readonly [Module in keyof Factories]: ReturnType<Factories[Module]>;
} & {
  transaction<T>(work: (tx: TransactionalStore<Factories>) => Promise<T>): Promise<T>;
  batchedTransaction<T>(work: (tx: TransactionalStore<Factories>) => Promise<T>): Promise<T>;
};

/**
 * Why running a failed transaction again may succeed: a serialization failure or a deadlock
 * (40001, 40P01), or a unique violation (23505). The services check, then insert (a pin, a group,
 * an applied status): on SQLite nothing runs between the two, but here another instance may insert
 * the same row and commit first. Run again, the work finds that row and takes the other branch.
 */
const RETRYABLE_CODES = new Set(['40001', '40P01', '23505']);
/** How many times a transaction runs before its last failure is the answer. */
export const MAX_ATTEMPTS = 4;

/** A short random pause, longer at each attempt, so the transactions that collided do not collide again. */
const backOff = (attempt: number) => new Promise((resolve) => setTimeout(resolve, attempt * (5 + Math.random() * 20)));

/**
 * The store on a PostgreSQL pool. Each transaction runs on one connection of the pool while other
 * callers use the others, so `batchedTransaction` is `transaction`: concurrency comes from the
 * pool, not from sharing a commit. A transaction on a transaction's store is a savepoint. A
 * transaction that lost a race to another (RETRYABLE_CODES) runs again, a few times at most: its
 * work must therefore only touch the store it is given.
 */
export function transactionalStore<Factories extends QueryFactories>(factories: Factories, db: PgDb): TransactionalStore<Factories> {
  return storeOn(factories, db, false);
}

/** The store whose queries run on `db`: each module built at its first use, as a transaction uses few. */
function storeOn<Factories extends QueryFactories>(factories: Factories, db: PgDb, inTransaction: boolean): TransactionalStore<Factories> {
  type Store = TransactionalStore<Factories>;
  const store: Record<string, unknown> = {};
  for (const [name, factory] of Object.entries(factories)) {
    Object.defineProperty(store, name, {
      configurable: true,
      enumerable: true,
      get() {
        const module = factory(db);
        Object.defineProperty(store, name, { value: module, enumerable: true });
        return module;
      },
    });
  }
  const onTransaction = <T>(work: (tx: Store) => Promise<T>) => db.transaction((tx) => work(storeOn(factories, tx, true)));
  const transaction = inTransaction ? onTransaction : <T>(work: (tx: Store) => Promise<T>) => retried(() => onTransaction(work));
  store.transaction = transaction;
  store.batchedTransaction = transaction;
  return store as Store;
}

async function retried<T>(run: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (error) {
      const code = postgresCode(error);
      if (attempt >= MAX_ATTEMPTS || code === undefined || !RETRYABLE_CODES.has(code)) throw error;
      await backOff(attempt);
    }
  }
}
