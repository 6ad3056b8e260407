import type { BatchWork, Store } from '../db/store.ts';
import type { AccountCache, CachedKind } from './account-cache.ts';

type Method = (...args: never[]) => Promise<unknown>;

/** The reads the account cache answers: module, method, the map it keeps them in, and their key. */
const CACHED: Record<string, Record<string, { kind: CachedKind; key: (...args: string[]) => string }>> = {
  accounts: {
    findById: { kind: 'accountById', key: (id) => id },
    findByServiceNumber: { kind: 'accountByLine', key: (number) => number },
    listServiceNumbers: { kind: 'lines', key: (accountId) => accountId },
  },
  webhookSubscriptions: {
    ofType: { kind: 'webhooks', key: (accountId, type) => `${accountId}\n${type}` },
  },
};

/**
 * The modules holding what the cache keeps, and the methods of theirs that change none of it.
 * Every other method of these modules counts as a change, so a write added later empties the
 * cache without being listed here.
 */
const UNCHANGING: Record<string, ReadonlySet<string>> = {
  accounts: new Set([
    'findByKeyId',
    'findByEmail',
    'list',
    'count',
    'lineUsers',
    'leastLoadedLine',
    'leastLoadedLineMany',
    'findPinnedLine',
    'pinEndUser',
  ]),
  accountWebhooks: new Set(['secretsOf']),
  lines: new Set(['ofAccount', 'carrierOf', 'all']),
  webhookSubscriptions: new Set(['all']),
};

/** One transaction's part: whether it changed cached data, which then bypasses the cache until it ends. */
type Changes = { changed: boolean };

/**
 * `store` with the account cache in front of the reads of per-account data that rarely changes
 * (`CACHED`). A transaction that changes such data reads past the cache, and once it ended the
 * cache is emptied and `changed` told (the notifier, which tells the other instances).
 */
export function cachingStore(store: Store, cache: AccountCache, changed: () => void): Store {
  function begin(changes: Changes): void {
    if (changes.changed) return;
    changes.changed = true;
    cache.changeBegan();
  }

  function end(changes: Changes): void {
    if (!changes.changed) return;
    cache.changeEnded();
    changed();
  }

  function moduleOf(inner: Store, name: string, changes: Changes | undefined): object {
    const cached = CACHED[name] ?? {};
    const unchanging = UNCHANGING[name]!;
    const module = inner[name as keyof Store] as unknown as Record<string, Method>;
    // Each method's stand-in is made once per module and kept: callers look methods up at every call.
    const standIns = new Map<string, unknown>();
    const standInFor = (method: string): unknown => {
      const read = cached[method];
      if (read) {
        return (...args: string[]) => {
          const direct = () => (module[method] as (...args: string[]) => Promise<object | undefined>)(...args);
          // A transaction's own change is not committed yet: the cache neither answers nor keeps it.
          if (changes?.changed) return direct();
          return cache.through(inner, read.kind, read.key(...args), direct);
        };
      }
      return async (...args: never[]) => {
        const own: Changes = changes ?? { changed: false };
        begin(own);
        try {
          return await module[method]!(...args);
        } finally {
          if (changes === undefined) end(own);
        }
      };
    };
    // An empty target: the answers differ from the module's own methods, which a proxy of it may not do.
    return new Proxy(
      {},
      {
        get(_, method) {
          if (typeof method !== 'string') return Reflect.get(module, method);
          if (unchanging.has(method)) return module[method];
          let standIn = standIns.get(method);
          if (standIn === undefined) {
            standIn = standInFor(method);
            standIns.set(method, standIn);
          }
          return standIn;
        },
      },
    );
  }

  /** A transaction's store as wrapped for it, reused by its savepoints when they hand the work the same store. */
  const wrapped = new WeakMap<Changes, { inner: Store; store: Store }>();

  function wrapFor(inner: Store, changes: Changes): Store {
    const kept = wrapped.get(changes);
    if (kept?.inner === inner) return kept.store;
    const store = wrap(inner, changes);
    wrapped.set(changes, { inner, store });
    return store;
  }

  function wrap(inner: Store, changes: Changes | undefined): Store {
    const modules = new Map<string, object>();
    /** Runs `run` with the changes it belongs to: a savepoint's end with the outermost transaction's, a batch's works share theirs. */
    async function within<T>(run: (changes: Changes) => Promise<T>): Promise<T> {
      if (changes) return run(changes);
      const own: Changes = { changed: false };
      try {
        return await run(own);
      } finally {
        end(own);
      }
    }
    const transaction = <T>(work: (tx: Store) => Promise<T>) => within((own) => inner.transaction((tx) => work(wrapFor(tx, own))));
    const batch = (works: readonly BatchWork[]) => within((own) => inner.batch(works.map((work) => (tx: Store) => work(wrapFor(tx, own)))));
    return new Proxy({} as Store, {
      get(_, key) {
        if (key === 'transaction') return transaction;
        if (key === 'batch') return batch;
        if (typeof key !== 'string' || UNCHANGING[key] === undefined) return Reflect.get(inner, key);
        let module = modules.get(key);
        if (!module) {
          module = moduleOf(inner, key, changes);
          modules.set(key, module);
        }
        return module;
      },
    });
  }

  return wrap(store, undefined);
}
