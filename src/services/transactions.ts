import type { Store } from '../db/store.ts';
import type { Notifier, ServiceDeps } from './deps.ts';
import type { Batching } from './group-commit.ts';
import type { RateLimiter } from './rate-limiter.ts';

/** The notifier handed to work inside a transaction: what it is told waits for the commit. */
type AfterCommitNotifier = Notifier & { readonly afterCommit: true };

/**
 * A notifier that queues its calls, for `committed` to make once the transaction committed: another
 * instance, or a live view, told before the commit would read the database without the change.
 */
function notifyAfterCommit(target: Notifier): { notifier: AfterCommitNotifier; committed(): void } {
  const waiting: (() => void)[] = [];
  let outboxWritten = false;
  let sandboxDueAt: number | undefined;
  const notifier: AfterCommitNotifier = {
    afterCommit: true,
    messageQueued: (handle, sender) => waiting.push(() => target.messageQueued(handle, sender)),
    // The dispatcher reads every new row at once: one wake per commit, however many rows it wrote.
    outboxWritten: () => {
      if (outboxWritten) return;
      outboxWritten = true;
      waiting.push(() => target.outboxWritten());
    },
    // The scheduler needs only the earliest step of the commit: the others are due after it.
    sandboxPlanned: (dueAt) => {
      if (sandboxDueAt === undefined) waiting.push(() => target.sandboxPlanned?.(sandboxDueAt!));
      sandboxDueAt = Math.min(dueAt, sandboxDueAt ?? dueAt);
    },
    accountActivity: (accountId) => waiting.push(() => target.accountActivity?.(accountId)),
  };
  return {
    notifier,
    committed() {
      for (const notify of waiting) notify();
    },
  };
}

/**
 * A rate limiter for each run of a transaction's work whose calls, made again in the same order
 * by a later run of the same work (a lost race, a batch run again alone), get the first run's
 * answers: a work that runs twice must not pay its tokens twice.
 */
function answeringOnce(limiter: RateLimiter): () => RateLimiter {
  const answers: { key: string; answer: Promise<void> }[] = [];
  return () => {
    let next = 0;
    return {
      consume(key, count) {
        const call = `${key}\n${count ?? 1}`;
        const index = next++;
        const known = answers[index];
        if (known?.key === call) return known.answer;
        const answer = limiter.consume(key, count);
        answers[index] = { key: call, answer };
        return answer;
      },
    };
  };
}

async function run<T>(deps: ServiceDeps, transaction: Store['transaction'], work: (deps: ServiceDeps) => Promise<T>): Promise<T> {
  // A nested transaction is a savepoint of its parent: what both were told waits for the parent's commit.
  if (isInsideTransaction(deps)) return deps.store.transaction((store) => work({ ...deps, store }));
  const { notifier, committed } = notifyAfterCommit(deps.notify);
  const sendRateLimiter = answeringOnce(deps.sendRateLimiter);
  const writeRateLimiter = answeringOnce(deps.writeRateLimiter);
  const result = await transaction((store) =>
    work({ ...deps, sendRateLimiter: sendRateLimiter(), writeRateLimiter: writeRateLimiter(), store, notify: notifier }),
  );
  committed();
  return result;
}

const isInsideTransaction = (deps: ServiceDeps) => (deps.notify as Partial<AfterCommitNotifier>).afterCommit === true;

/**
 * Runs `work` in one transaction, handing it the dependencies whose store is that transaction's:
 * every query `work` makes joins the transaction, whichever helper it calls; what it tells the
 * notifier is told once the transaction committed, and not at all if it rolled back.
 */
export function inTransaction<T>(deps: ServiceDeps, work: (deps: ServiceDeps) => Promise<T>): Promise<T> {
  return run(deps, (inner) => deps.store.transaction(inner), work);
}

/**
 * As `inTransaction`, for the hot write paths: the transaction (and its commit) is shared with
 * other callers' work of the same kind by group commit (group-commit.ts); `batching.keys` name what
 * the work reads and then writes (batch-keys.ts): works sharing a key never share a batch.
 */
export function inBatchedTransaction<T>(deps: ServiceDeps, batching: Batching, work: (deps: ServiceDeps) => Promise<T>): Promise<T> {
  return run(deps, (inner) => deps.groupCommit.run(inner, batching), work);
}

export type WriteOptions = {
  /** Share the transaction (and its commit) with other callers' writes: for the hot paths of requests and background writers. */
  batched?: boolean;
};

export function inWriteTransaction<T>(
  deps: ServiceDeps,
  options: WriteOptions,
  batching: Batching,
  work: (deps: ServiceDeps) => Promise<T>,
): Promise<T> {
  return options.batched ? inBatchedTransaction(deps, batching, work) : inTransaction(deps, work);
}
