import type { Store } from '../../src/db/store.ts';

/**
 * A store to hand out at once for one that is still being made (a PostgreSQL database being
 * copied): every call waits for it, then goes to it. What a call answers is the real store's
 * answer; transactions get the real store's transaction.
 */
export function deferredStore(ready: Promise<Store>): Store {
  let real: Store | undefined;
  void ready.then((store) => {
    real = store;
  });
  const modules = new Map<PropertyKey, unknown>();
  const moduleOf = (module: keyof Store) =>
    new Proxy(
      {},
      {
        get: (_, method) =>
          typeof method === 'string' && method !== 'then'
            ? async (...args: unknown[]) => {
                const target = (await ready)[module] as unknown as Record<string, (...args: unknown[]) => unknown>;
                return await target[method]!(...args);
              }
            : undefined,
      },
    );
  return new Proxy({} as Store, {
    get(_, key) {
      if (key === 'transaction') return async (work: (tx: Store) => Promise<unknown>) => (await ready).transaction(work);
      if (key === 'batchesAtOnce') return real?.batchesAtOnce ?? 1;
      if (key === 'batch') return async (works: Parameters<Store['batch']>[0]) => (await ready).batch(works);
      if (typeof key !== 'string' || key === 'then') return undefined;
      if (!modules.has(key)) modules.set(key, moduleOf(key as keyof Store));
      return modules.get(key);
    },
  });
}
