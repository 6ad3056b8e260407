import type { Store } from '../db/store.ts';
import { storageTrouble } from './storage-errors.ts';

type Pending = { work: () => unknown; resolve: (value: unknown) => void; reject: (error: unknown) => void };

/**
 * Group commit: the writes of every request that arrives within one event-loop turn share one
 * transaction, each in its own savepoint (a failing request rolls back alone), and every answer
 * waits for the COMMIT. Under load this pays one commit per batch instead of one per request.
 * The batch runs synchronously, like every transaction here.
 */
export function createGroupCommit(store: Store) {
  let pending: Pending[] = [];

  function flush(): void {
    const batch = pending;
    pending = [];
    const outcomes: ({ ok: true; value: unknown } | { ok: false; error: unknown })[] = [];
    try {
      store.transaction(() => {
        for (const item of batch) {
          try {
            // Nested: a savepoint, released into the batch or rolled back alone.
            outcomes.push({ ok: true, value: store.transaction(item.work) });
          } catch (error) {
            // A full disk or an I/O error may have made SQLite roll back the whole batch already, and
            // the next request would then run (and commit) outside it: the batch ends here.
            if (storageTrouble(error) !== undefined) throw error;
            outcomes.push({ ok: false, error });
          }
        }
      });
    } catch (error) {
      // The storage failed, or the COMMIT did: nothing of the batch is stored, so no request may succeed.
      for (const item of batch) item.reject(error);
      return;
    }
    batch.forEach((item, index) => {
      const outcome = outcomes[index]!;
      if (outcome.ok) item.resolve(outcome.value);
      else item.reject(outcome.error);
    });
  }

  return {
    /** Runs `work` (synchronous, may throw) in the next batch; resolves with its result once the batch committed. */
    run<T>(work: () => T): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        if (pending.length === 0) setImmediate(flush);
        pending.push({ work, resolve: resolve as (value: unknown) => void, reject });
      });
    },
  };
}

export type GroupCommit = ReturnType<typeof createGroupCommit>;
