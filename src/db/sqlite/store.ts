import type { Statement } from 'better-sqlite3';
import type { BatchOutcome, BatchWork, Queries, Store } from '../store.ts';
import type { Db } from './connection.ts';
import { createSqliteQueries, type SqliteQueries } from './queries.ts';
import { isDamage, sqliteFamily, sqliteStorageTrouble } from './sqlite-codes.ts';

export type SqliteStore = {
  store: Store;
  /** True from the first sign of damage until the process restarts: a damaged file does not heal. */
  damaged: () => boolean;
  /** Transactions committed so far: what group commit saves shows here. */
  commits: () => number;
  /**
   * The synchronous queries both the store and its transactions call, looked up at each call:
   * replacing one of their methods replaces it for every caller (the fault tests do).
   */
  queries: SqliteQueries;
};

type Method = (...args: unknown[]) => unknown;

/**
 * The store on one SQLite connection. better-sqlite3 answers at once, but a transaction's work is
 * asynchronous (it awaits the store like every caller), so while one is open every call from
 * outside it waits for its end: the connection has one transaction, and a stranger's write must
 * not join it (nor a stranger's read see it before it commits).
 *
 * Every SQLite error gets the file's name (`database`, which the logger prints with the error),
 * and the first SQLITE_CORRUPT or SQLITE_NOTADB marks the database damaged, which readiness reports.
 */
export function createSqliteStore(db: Db, file: string): SqliteStore {
  const client = db.$client;
  const begin = client.prepare('begin immediate');
  const commit = client.prepare('commit');
  const rollback = client.prepare('rollback');
  let damaged = false;
  /** Settles when the open transaction ends; null while none is open. */
  let openTransaction: Promise<void> | null = null;
  let savepoints = 0;
  let commits = 0;
  /** Queries made inside the open transaction so far, and that count when each open savepoint began (by depth). */
  let queriesInside = 0;
  const queriesAtSavepoint: number[] = [];
  /**
   * `pragma data_version` as first read in the open transaction: it holds the write lock, so no
   * other connection commits before it ends, and every later read in it (a batch's every request) would answer the same.
   */
  let versionInside: Promise<number> | undefined;

  function noted(error: unknown): unknown {
    if (sqliteFamily(error) !== undefined && typeof error === 'object' && error !== null) {
      (error as { database?: string }).database ??= file;
      if (isDamage(error)) damaged = true;
    }
    return error;
  }

  function answer(module: Record<string, Method>, method: string, args: unknown[]): Promise<unknown> {
    try {
      return Promise.resolve(module[method]!(...args));
    } catch (error) {
      return Promise.reject(noted(error));
    }
  }

  /** Waits out open transactions; the call then runs in the same tick as the check that none is open. */
  async function outsideTransactions<T>(run: () => T | Promise<T>): Promise<T> {
    while (openTransaction !== null) await openTransaction;
    return run();
  }

  function bind(queries: SqliteQueries, fromOutside: boolean): Queries {
    return Object.fromEntries(
      Object.entries(queries).map(([name, module]) => [
        name,
        Object.fromEntries(
          Object.keys(module).map((method) => {
            const calls = module as Record<string, Method>;
            const direct = (...args: unknown[]) => {
              queriesInside += 1;
              return answer(calls, method, args);
            };
            const guarded = (...args: unknown[]) =>
              openTransaction !== null ? outsideTransactions(() => answer(calls, method, args)) : answer(calls, method, args);
            return [method, fromOutside ? guarded : direct];
          }),
        ),
      ]),
    ) as Queries;
  }

  const queries = createSqliteQueries(db);

  function dataVersionInside(): Promise<number> {
    versionInside ??= answer(queries.dataVersion as unknown as Record<string, Method>, 'current', []) as Promise<number>;
    return versionInside;
  }

  /** Each depth's savepoint statements, prepared once: every write of the group commit takes one. */
  const savepointStatements: { open: Statement; release: Statement; rollback: Statement }[] = [];
  function savepointAt(depth: number) {
    const name = `s${depth}`;
    savepointStatements[depth] ??= {
      open: client.prepare(`savepoint ${name}`),
      release: client.prepare(`release ${name}`),
      rollback: client.prepare(`rollback to ${name}`),
    };
    return savepointStatements[depth];
  }

  /**
   * A savepoint opened where the enclosing one has seen no query yet needs none of its own: rolling
   * back to the enclosing one restores the same state. The group commit's savepoint of each caller
   * so covers the one its service opens first (a send's transaction) at no cost.
   */
  async function sharedSavepoint<T>(work: (tx: Store) => Promise<T>): Promise<T> {
    try {
      return await work(inside);
    } catch (error) {
      if (client.inTransaction) {
        savepointAt(savepoints).rollback.run();
        queriesAtSavepoint[savepoints] = queriesInside;
      }
      throw noted(error);
    }
  }

  async function savepoint<T>(work: (tx: Store) => Promise<T>): Promise<T> {
    if (savepoints > 0 && queriesAtSavepoint[savepoints] === queriesInside) return sharedSavepoint(work);
    const statements = savepointAt(++savepoints);
    statements.open.run();
    queriesAtSavepoint[savepoints] = queriesInside;
    try {
      const result = await work(inside);
      statements.release.run();
      return result;
    } catch (error) {
      // A full disk or an I/O error may have ended the whole transaction already.
      if (client.inTransaction) {
        statements.rollback.run();
        statements.release.run();
      }
      throw noted(error);
    } finally {
      savepoints--;
    }
  }

  async function transaction<T>(work: (tx: Store) => Promise<T>): Promise<T> {
    while (openTransaction !== null) await openTransaction;
    let ended!: () => void;
    openTransaction = new Promise((resolve) => {
      ended = resolve;
    });
    try {
      begin.run();
      versionInside = undefined;
      try {
        const result = await work(inside);
        commit.run();
        commits += 1;
        return result;
      } catch (error) {
        if (client.inTransaction) rollback.run();
        throw error;
      }
    } catch (error) {
      throw noted(error);
    } finally {
      openTransaction = null;
      versionInside = undefined;
      ended();
    }
  }

  /** Each work in a savepoint of its own, one after another, in the transaction `tx` belongs to. */
  async function inSavepoints(tx: Store, works: readonly BatchWork[]): Promise<BatchOutcome[]> {
    const outcomes: BatchOutcome[] = [];
    for (const work of works) {
      try {
        outcomes.push({ ok: true, value: await tx.transaction(work) });
      } catch (error) {
        // The storage failed: SQLite may have rolled back the whole transaction already, and the
        // next work would then run (and commit) outside it. The batch ends here.
        if (sqliteStorageTrouble(error) !== undefined) throw error;
        outcomes.push({ ok: false, error });
      }
    }
    return outcomes;
  }

  const inside: Store = {
    ...bind(queries, false),
    dataVersion: { current: dataVersionInside },
    transaction: savepoint,
    batch: (works) => inSavepoints(inside, works),
    batchesAtOnce: 1,
  };

  /** One transaction, each work in its own savepoint: a failing work rolls back alone, and the storage failing or the COMMIT rejects the whole batch. */
  function batch(works: readonly BatchWork[]): Promise<BatchOutcome[]> {
    return transaction((tx) => inSavepoints(tx, works));
  }

  const store: Store = { ...bind(queries, true), transaction, batch, batchesAtOnce: 1 };
  return { store, damaged: () => damaged, commits: () => commits, queries };
}
