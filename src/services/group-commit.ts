import type { BatchWork, Store } from '../db/store.ts';

/** Works gathered in one batch at most: a bound on the transaction's size and on the wait of its first caller. */
export const MAX_BATCH = 64;

/**
 * Where a work goes: its kind of write (sends, status events...), whose works alone share a
 * batch, one batch of a kind at a time, so batches running at once never take the same rows'
 * locks in opposite orders; and its keys (batch-keys.ts).
 */
export type Batching = { kind: string; keys: readonly string[] };

type Waiting = {
  work: BatchWork;
  kind: string;
  keys: readonly string[];
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
};

/**
 * Group commit: the hot paths' transactions (sends, status events, inbound messages, hand-overs)
 * that arrive while the database is busy share one transaction and one COMMIT.
 */
export type GroupCommit = {
  /**
   * Runs `work` in the next batch of its kind, and answers only once that batch committed (or
   * `work` failed: its failure is its own). Works sharing a key (a message, an end user: what
   * they read, then write) never share a batch: a later one runs in a later batch, seeing what
   * the earlier wrote.
   */
  run<T>(work: (tx: Store) => Promise<T>, batching?: Batching): Promise<T>;
};

/**
 * Gathers works until the current event-loop turn ends (every request whose bytes arrived in it)
 * and hands them to the store's `batch`, as many batches at once as the store runs; what arrives
 * while they run forms the next. A work alone is a batch of one, written at once.
 */
export function createGroupCommit(store: Store, maxBatch = MAX_BATCH): GroupCommit {
  let waiting: Waiting[] = [];
  let batchesRunning = 0;
  /** The keys of the works in the batches running now: a work sharing one waits for them to end. */
  const busy = new Set<string>();
  const kindsRunning = new Set<string>();

  /**
   * The next batch: the oldest works of the oldest kind not running now, none sharing a key with
   * another or with a running batch, at most `maxBatch`; the others keep their order.
   */
  function nextBatch(): Waiting[] {
    const batch: Waiting[] = [];
    const left: Waiting[] = [];
    const taken = new Set<string>();
    // The oldest work that may run now sets the kind: one whose key is busy never holds another kind up.
    const kind = waiting.find((item) => !kindsRunning.has(item.kind) && !item.keys.some((key) => busy.has(key)))?.kind;
    for (const item of waiting) {
      if (item.kind !== kind || batch.length >= maxBatch || item.keys.some((key) => taken.has(key) || busy.has(key))) {
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
    for (const item of batch) for (const key of item.keys) busy.add(key);
    kindsRunning.add(batch[0]!.kind);
    try {
      const outcomes = await store.batch(batch.map((item) => item.work));
      batch.forEach((item, index) => {
        const outcome = outcomes[index]!;
        if (outcome.ok) item.resolve(outcome.value);
        else item.reject(outcome.error);
      });
    } catch (error) {
      for (const item of batch) item.reject(error);
    } finally {
      for (const item of batch) for (const key of item.keys) busy.delete(key);
      kindsRunning.delete(batch[0]!.kind);
    }
  }

  /** Starts batches while the store takes more and works wait that may run now. */
  function startBatches(): void {
    while (batchesRunning < store.batchesAtOnce && waiting.length > 0) {
      const batch = nextBatch();
      if (batch.length === 0) return;
      batchesRunning += 1;
      void runBatch(batch).finally(() => {
        batchesRunning -= 1;
        startBatches();
      });
    }
  }

  let startScheduled = false;
  function scheduleStart(): void {
    if (startScheduled) return;
    startScheduled = true;
    setImmediate(() => {
      startScheduled = false;
      startBatches();
    });
  }

  return {
    run<T>(work: (tx: Store) => Promise<T>, { kind, keys }: Batching = { kind: '', keys: [] }): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        if (batchesRunning < store.batchesAtOnce) scheduleStart();
        waiting.push({ work, kind, keys, resolve: resolve as (value: unknown) => void, reject });
      });
    },
  };
}
