import type { BatchOutcome, BatchWork } from '../store.ts';
import type { PgDb } from './db.ts';
import { mergingModules } from './merged-calls.ts';
import { postgresCode } from './postgres-codes.ts';

/** Each module of a store and the factory of its queries on a pool or a transaction. */
export type QueryFactories = Record<string, (db: PgDb) => object>;

/** The store those factories make: their modules, and transactions that hand the work a store of the same kind. */
export type TransactionalStore<Factories extends QueryFactories> = {
  readonly [Module in keyof Factories]: ReturnType<Factories[Module]>;
} & {
  transaction<T>(work: (tx: TransactionalStore<Factories>) => Promise<T>): Promise<T>;
  batch(works: readonly ((tx: TransactionalStore<Factories>) => Promise<unknown>)[]): Promise<BatchOutcome[]>;
  readonly batchesAtOnce: number;
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
 * Batches one instance runs at once, each on a connection of the pool: while one waits for its
 * COMMIT's flush, the next gathers and writes. The rest of the pool serves reads and other writes.
 */
const BATCHES_AT_ONCE = 3;

/** Thrown inside a batch's transaction to roll it back unstored: a work failed, and the works then run alone. */
class BatchRolledBack extends Error {}

/**
 * The store on a PostgreSQL pool. Each transaction runs on one connection of the pool while other
 * callers use the others. A transaction on a transaction's store is a savepoint. A transaction
 * that lost a race to another (RETRYABLE_CODES) runs again, a few times at most: its work must
 * therefore only touch the store it is given.
 *
 * A batch runs its works together ("in lockstep") in one transaction: each work's queries go out
 * as it makes them, pipelined on the connection, and the calls the works make to one method in
 * the same turn run as one call of its set-based twin (merged-calls.ts). PostgreSQL has no
 * savepoint per concurrent work, so when any work fails, or opened a savepoint that failed, the
 * batch rolls back unstored and every work runs again alone, in a transaction of its own.
 */
export function transactionalStore<Factories extends QueryFactories>(factories: Factories, db: PgDb): TransactionalStore<Factories> {
  return storeOn(factories, db, false);
}

function modulesOn(factories: QueryFactories, db: PgDb): Record<string, unknown> {
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
  return store;
}

/** The store whose queries run on `db`: each module built at its first use, as a transaction uses few. */
function storeOn<Factories extends QueryFactories>(factories: Factories, db: PgDb, inTransaction: boolean): TransactionalStore<Factories> {
  type Store = TransactionalStore<Factories>;
  const store = modulesOn(factories, db);
  const onTransaction = <T>(work: (tx: Store) => Promise<T>) => db.transaction((tx) => work(storeOn(factories, tx, true)));
  const transaction = inTransaction ? onTransaction : <T>(work: (tx: Store) => Promise<T>) => retried(() => onTransaction(work));
  store.transaction = transaction;
  store.batchesAtOnce = inTransaction ? 1 : BATCHES_AT_ONCE;
  store.batch = async (works: readonly ((tx: Store) => Promise<unknown>)[]): Promise<BatchOutcome[]> => {
    if (inTransaction) return inSavepoints(transaction, works);
    if (works.length === 1) return [await settled(() => transaction(works[0]!))];
    try {
      return await db.transaction((tx) => inLockstep(factories, tx, works as readonly BatchWork[]));
    } catch (error) {
      if (!(error instanceof BatchRolledBack) && !RETRYABLE_CODES.has(postgresCode(error) ?? '')) throw error;
      return Promise.all(works.map((work) => settled(() => transaction(work))));
    }
  };
  return store as Store;
}

async function settled(run: () => Promise<unknown>): Promise<BatchOutcome> {
  try {
    return { ok: true, value: await run() };
  } catch (error) {
    return { ok: false, error };
  }
}

async function inSavepoints<Tx>(
  savepoint: (work: (tx: Tx) => Promise<unknown>) => Promise<unknown>,
  works: readonly ((tx: Tx) => Promise<unknown>)[],
) {
  const outcomes: BatchOutcome[] = [];
  for (const work of works) outcomes.push(await settled(() => savepoint(work)));
  return outcomes;
}

/**
 * The works of a batch, together on the transaction `tx`: their outcomes once all of them
 * succeeded, or BatchRolledBack (thrown, so the transaction rolls back) once one failed.
 */
async function inLockstep(factories: QueryFactories, tx: PgDb, works: readonly BatchWork[]): Promise<BatchOutcome[]> {
  let savepointFailed = false;
  const shared: Record<string, unknown> = mergingModules(modulesOn(factories, tx), Object.keys(factories));
  // A work's nested transaction shares the batch's: its failure cannot roll back alone, so it sends the batch to run alone.
  shared.batchesAtOnce = 1;
  shared.transaction = async (work: (inner: unknown) => Promise<unknown>) => {
    try {
      return await work(shared);
    } catch (error) {
      savepointFailed = true;
      throw error;
    }
  };
  shared.batch = (inner: readonly ((store: unknown) => Promise<unknown>)[]) =>
    inSavepoints(shared.transaction as (work: (store: unknown) => Promise<unknown>) => Promise<unknown>, inner);
  const outcomes = await Promise.all(works.map((work) => settled(() => work(shared as never))));
  if (savepointFailed || outcomes.some((outcome) => !outcome.ok)) throw new BatchRolledBack();
  return outcomes;
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
