import type { BatchWork, Store } from '../db/store.ts';

/** Works gathered in one batch at most: a bound on the transaction's size and on the wait of its first caller. */
export const MAX_BATCH = 64;

type Waiting = { work: BatchWork; keys: readonly string[]; resolve: (value: unknown) => void; reject: (error: unknown) => void };

/**
 * Group commit: the hot paths' transactions (sends, status events, inbound messages, hand-overs)
 * that arrive while the database is busy share one transaction and one COMMIT.
 */
export type GroupCommit = {
  /**
   * Runs `work` in the next batch, and answers only once that batch committed (or `work` failed:
   * its failure is its own). Works sharing a key (a message, an end user: what they read, then
   * write) never share a batch: a later one runs in a later batch, seeing what the earlier wrote.
   */
  run<T>(work: (tx: Store) => Promise<T>, keys?: readonly string[]): Promise<T>;
};

/**
 * Gathers works until the current event-loop turn ends (every request whose bytes arrived in it)
 * and hands them to the store's `batch`, one batch at a time; what arrives meanwhile forms the
 * next. A work alone is a batch of one, written at once.
 */
export function createGroupCommit(store: Store, maxBatch = MAX_BATCH): GroupCommit {
  let waiting: Waiting[] = [];
  let running = false;

  /** The next batch: the oldest works, none sharing a key, at most `maxBatch`; the others keep their order. */
  function nextBatch(): Waiting[] {
    const batch: Waiting[] = [];
    const left: Waiting[] = [];
    const taken = new Set<string>();
    for (const item of waiting) {
      if (batch.length >= maxBatch || item.keys.some((key) => taken.has(key))) {
        left.push(item);
        continue;
      }
      batch.push(item);
      for (const key of item.keys) taken.add(key);
    }
    waiting = left;
    return batch;
  }

  async function runBatch(batch: Waiting[]): Promise<void> {
    try {
      const outcomes = await store.batch(batch.map((item) => item.work));
      batch.forEach((item, index) => {
        const outcome = outcomes[index]!;
        if (outcome.ok) item.resolve(outcome.value);
        else item.reject(outcome.error);
      });
    } catch (error) {
      for (const item of batch) item.reject(error);
    }
  }

  async function drain(): Promise<void> {
    running = true;
    try {
      while (waiting.length > 0) await runBatch(nextBatch());
    } finally {
      running = false;
    }
  }

  return {
    run<T>(work: (tx: Store) => Promise<T>, keys: readonly string[] = []): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        if (waiting.length === 0 && !running) setImmediate(drain);
        waiting.push({ work, keys, resolve: resolve as (value: unknown) => void, reject });
      });
    },
  };
}
