import type { Store } from '../db/store.ts';

/** Entries each map keeps at most; past that the oldest go, so unknown keys cannot grow memory. */
const MAX_ENTRIES = 10_000;

/** The kinds of per-account data kept in memory, each in a map of its own. */
export type CachedKind = 'credentials' | 'accountById' | 'accountByLine' | 'lines' | 'webhooks';

/**
 * The per-account data that rarely changes (the account found by its credentials, its lines,
 * its webhook lists), kept in memory (the **account cache**). Any change empties all of it: the
 * caching store (`caching-store.ts`) when this process commits one, the notifier when another
 * instance says it did, and, on SQLite, a look at `pragma data_version` before each read, which
 * moves when another process (a CLI command) committed to the file.
 */
export function createAccountCache() {
  const maps = new Map<CachedKind, Map<string, unknown>>();
  /** Moves at every change: a read that began before it does not store what it read. */
  let generation = 0;
  /** Transactions that changed cached data and have not ended: nothing is stored meanwhile. */
  let changing = 0;
  let seenVersion: number | undefined;

  function clear(): void {
    generation += 1;
    maps.clear();
  }

  function mapOf(kind: CachedKind): Map<string, unknown> {
    let map = maps.get(kind);
    if (!map) {
      map = new Map();
      maps.set(kind, map);
    }
    return map;
  }

  return {
    /**
     * The value of `key`, read by `read` (through `store`, the caller's transaction or the
     * process's store) when not kept; found values are kept, frozen, until the next change.
     */
    async through<T extends object>(
      store: Store,
      kind: CachedKind,
      key: string,
      read: () => Promise<T | undefined>,
    ): Promise<T | undefined> {
      const version = await store.dataVersion.current();
      if (version !== seenVersion) {
        if (seenVersion !== undefined) clear();
        seenVersion = version;
      }
      const kept = maps.get(kind)?.get(key);
      if (kept !== undefined) return kept as T;
      const before = generation;
      const value = await read();
      if (value === undefined || before !== generation || changing > 0) return value;
      const map = mapOf(kind);
      if (map.size >= MAX_ENTRIES) map.delete(map.keys().next().value!);
      map.set(key, Object.freeze(value));
      return value;
    },
    /** A transaction began changing cached data: nothing is kept until it ends. */
    changeBegan(): void {
      changing += 1;
      clear();
    },
    /** That transaction committed or rolled back: what was kept before it is gone. */
    changeEnded(): void {
      changing -= 1;
      clear();
    },
    /** Another instance changed cached data (or may have, while its notifications could not be heard). */
    clear,
  };
}

export type AccountCache = ReturnType<typeof createAccountCache>;
