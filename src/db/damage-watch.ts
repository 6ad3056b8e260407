import { isDamage, sqliteFamily } from './sqlite-codes.ts';
import type { Store } from './store.ts';

export type WatchedStore = {
  store: Store;
  /** True from the first sign of damage until the process restarts: a damaged file does not heal. */
  damaged: () => boolean;
};

/**
 * Watches every call into the store: an SQLite error gets the file's name (`database`, which the
 * logger prints with the error wherever it is logged), and the first SQLITE_CORRUPT or
 * SQLITE_NOTADB marks the database damaged, which readiness reports.
 */
export function watchStore(store: Store, file: string): WatchedStore {
  let damaged = false;
  const watch = <F extends (...args: never[]) => unknown>(call: F): F =>
    ((...args: Parameters<F>) => {
      try {
        return call(...args);
      } catch (error) {
        if (sqliteFamily(error) !== undefined && typeof error === 'object' && error !== null) {
          (error as { database?: string }).database ??= file;
          if (isDamage(error)) damaged = true;
        }
        throw error;
      }
    }) as F;
  const watchAll = (queries: object): object =>
    Object.fromEntries(
      Object.entries(queries).map(([name, value]) => [name, typeof value === 'function' ? watch(value.bind(queries)) : value]),
    );
  const watched = Object.fromEntries(
    Object.entries(store).map(([name, value]) => [
      name,
      typeof value === 'function' ? watch(value.bind(store)) : watchAll(value as object),
    ]),
  ) as Store;
  return { store: watched, damaged: () => damaged };
}
