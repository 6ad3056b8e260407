import type { ServiceDeps } from './deps.ts';

/**
 * Runs `work` in one transaction, handing it the dependencies whose store is that transaction's:
 * every query `work` makes joins the transaction, whichever helper it calls.
 */
export function inTransaction<T>(deps: ServiceDeps, work: (deps: ServiceDeps) => Promise<T>): Promise<T> {
  return deps.store.transaction((store) => work({ ...deps, store }));
}

/** As `inTransaction`, for the hot write paths: the store may share the transaction (and its commit) with other callers' work. */
export function inBatchedTransaction<T>(deps: ServiceDeps, work: (deps: ServiceDeps) => Promise<T>): Promise<T> {
  return deps.store.batchedTransaction((store) => work({ ...deps, store }));
}

export type WriteOptions = {
  /** Share the transaction (and its commit) with other callers' writes: for the hot paths of requests and background writers. */
  batched?: boolean;
};

export function inWriteTransaction<T>(deps: ServiceDeps, options: WriteOptions, work: (deps: ServiceDeps) => Promise<T>): Promise<T> {
  return options.batched ? inBatchedTransaction(deps, work) : inTransaction(deps, work);
}
