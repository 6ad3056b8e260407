import { ErrorCode } from '../domain/error-codes.ts';
import type { ServiceDeps } from '../services/deps.ts';
import {
  failHandover,
  type HandoverReceipt,
  messageAwaitingHandover,
  messagesAwaitingHandover,
  recordHandover,
} from '../services/handover.ts';
import { isOutage, storageTrouble } from '../services/storage-errors.ts';
import { type Transport, TransportRefusal, TransportUnavailable } from './transport.ts';

export type CourierOptions = {
  /** Pauses between hand-over attempts after a retryable failure; once spent, the message fails with 10001. */
  retryDelaysMs: readonly number[];
  /** Hand-overs in flight at once. */
  concurrency: number;
};

/** Upstream outages of a few minutes are ridden out; longer ones fail the message so the client hears about it. */
export const DEFAULT_COURIER_OPTIONS: CourierOptions = { retryDelaysMs: [1_000, 5_000, 15_000, 60_000, 120_000], concurrency: 32 };

/** A message to hand over: `attempt` counts failed posts; once the transport accepted it, `receipt` holds its answer and `recordings` the failed notes of it. */
type Work = { handle: string; attempt: number; receipt?: HandoverReceipt; recordings?: number };

/** How many waiting messages a resume loads at a time. */
const RESUME_BATCH = 500;

/**
 * Carries committed QUEUED messages to the transport, outside the request that stored them.
 * A failed hand-over is retried with backoff; after a crash `resume` finds every message still
 * waiting (the database is the queue, this object only paces it).
 */
export function createCourier(deps: ServiceDeps, transport: Transport, options: CourierOptions = DEFAULT_COURIER_OPTIONS) {
  const waiting: Work[] = [];
  const busy = new Set<string>();
  /** Every message this courier has work for (waiting, in flight or waiting to retry): a resume does not queue it twice. */
  const held = new Set<string>();
  /** The messages among them waiting for a retry timer. */
  const retrying = new Set<string>();
  const retryTimers = new Set<NodeJS.Timeout>();
  const inFlight = new Set<Promise<void>>();
  let stopped = false;
  /** Where the next page of a resume starts; null when no resume has pages left. */
  let resumeCursor: number | null = null;
  let readingPage = false;

  function retryLater(work: Work, delayMs: number): void {
    retrying.add(work.handle);
    const timer = setTimeout(() => {
      retryTimers.delete(timer);
      retrying.delete(work.handle);
      enqueueWork(work);
    }, delayMs);
    retryTimers.add(timer);
  }

  /**
   * The transport accepted the message but our note of it failed. The receipt is kept, so a retry
   * only records it again: the message is never posted twice on our account. A failure that is not
   * the database's trouble (which waits for the database) is retried with backoff, then ends the
   * message in ERROR with the reason.
   */
  async function recordingFailed(work: Work & { receipt: HandoverReceipt }, error: unknown): Promise<void> {
    if (stopped) return;
    if (storageTrouble(error) !== undefined) {
      if (!isOutage(error))
        deps.log.warn({ handle: work.handle, err: error }, 'could not record the hand-over (storage); will record it again');
      retryLater(work, options.retryDelaysMs[0] ?? 1_000);
      return;
    }
    const recordings = work.recordings ?? 0;
    if (recordings >= options.retryDelaysMs.length) {
      // The database's own words (SQL, other accounts' ids) go to the log only, as for internal errors.
      deps.log.error(
        { handle: work.handle, transportHandle: work.receipt.transportHandle, err: error },
        'could not record the hand-over; the message fails',
      );
      try {
        await failHandover(deps, work.handle, {
          errorCode: ErrorCode.sendFailed,
          errorMessage: `The ${transport.name} transport accepted the message, but recording its answer failed ${recordings + 1} times; it was not sent again`,
          source: transport.name,
        });
      } catch (failure) {
        // Not even the failure could be written: try again later, still without posting again.
        deps.log.error({ handle: work.handle, err: failure }, 'could not record the failed hand-over either; will try again');
        retryLater(work, options.retryDelaysMs.at(-1) ?? 1_000);
      }
      return;
    }
    deps.log.warn({ handle: work.handle, err: error, recordings }, 'could not record the hand-over; will record it again');
    retryLater({ ...work, recordings: recordings + 1 }, options.retryDelaysMs[recordings] ?? 1_000);
  }

  async function record(work: Work & { receipt: HandoverReceipt }): Promise<void> {
    try {
      // Batched with the other hand-overs and the requests of this turn: one COMMIT for all of them.
      await recordHandover(deps, work.handle, work.receipt, { batched: true });
    } catch (error) {
      await recordingFailed(work, error);
    }
  }

  async function handOver(work: Work): Promise<void> {
    if (work.receipt) return record({ ...work, receipt: work.receipt });
    const { handle, attempt } = work;
    const message = await messageAwaitingHandover(deps, handle);
    if (!message) return;
    let receipt: HandoverReceipt;
    try {
      receipt = await transport.send(message);
    } catch (error) {
      // The sandbox plans in our own database: its full disk is not the network's failure.
      if (storageTrouble(error) !== undefined) throw error;
      if (error instanceof TransportRefusal) {
        await failHandover(deps, handle, {
          errorCode: error.errorCode,
          errorMessage: error.message,
          source: transport.name,
          recipientOptedOut: error.recipientOptedOut,
        });
      } else if (stopped) {
        // Left QUEUED and not handed over: the next start resumes it.
      } else if (attempt >= options.retryDelaysMs.length) {
        deps.log.warn({ handle, attempt, err: error }, 'hand-over failed for good');
        await failHandover(deps, handle, {
          errorCode: ErrorCode.sendFailed,
          errorMessage:
            error instanceof TransportUnavailable
              ? `${error.message} (gave up after ${attempt + 1} attempts)`
              : `The ${transport.name} transport did not accept the message after ${attempt + 1} attempts`,
          source: transport.name,
        });
      } else {
        deps.log.info({ handle, attempt, err: error }, 'hand-over failed, will retry');
        retryLater({ handle, attempt: attempt + 1 }, options.retryDelaysMs[attempt] ?? 0);
      }
      return;
    }
    await record({ handle, attempt, receipt });
  }

  function pump(): void {
    while (!stopped && inFlight.size < options.concurrency) {
      const next = waiting.shift();
      if (!next) break;
      if (busy.has(next.handle)) continue;
      busy.add(next.handle);
      const work: Promise<void> = handOver(next)
        .catch((error: unknown) => {
          if (!isOutage(error)) deps.log.error({ err: error, handle: next.handle }, 'hand-over bookkeeping failed');
          // The database could not be read or written (full, read-only, busy): the message waits for
          // it, without spending an attempt, rather than for the next start.
          if (storageTrouble(error) !== undefined && !stopped) retryLater(next, options.retryDelaysMs[0] ?? 1_000);
        })
        .finally(() => {
          busy.delete(next.handle);
          if (!retrying.has(next.handle)) held.delete(next.handle);
          inFlight.delete(work);
          if (waiting.length === 0 && resumeCursor !== null) void resumePage(resumeCursor);
          else pump();
        });
      inFlight.add(work);
    }
  }

  function enqueueWork(work: Work): void {
    if (stopped) return;
    waiting.push(work);
    // Deferred: the caller may still be inside the transaction that stored the message.
    setImmediate(pump);
  }

  /** A message to hand over from its first attempt, unless this courier already has work for it. */
  function enqueue(handle: string): void {
    if (stopped || held.has(handle)) return;
    held.add(handle);
    enqueueWork({ handle, attempt: 0 });
  }

  async function resumeNextPage(cursor: number): Promise<void> {
    // Taken while the page is read, so that hand-overs finishing meanwhile do not read it again.
    resumeCursor = null;
    readingPage = true;
    try {
      const page = await messagesAwaitingHandover(deps, RESUME_BATCH, cursor);
      resumeCursor = page.messages.length === RESUME_BATCH ? page.cursor : null;
      for (const message of page.messages) enqueue(message.handle);
    } finally {
      readingPage = false;
    }
  }

  /** Queues every message that was accepted but never handed over, a batch at a time. */
  function resume(): Promise<void> {
    return resumeNextPage(0);
  }

  /** A page read from the pump: a failure is logged, and the next start resumes what it missed. */
  function resumePage(cursor: number): Promise<void> {
    return resumeNextPage(cursor).catch((error: unknown) => {
      if (!isOutage(error)) deps.log.error({ err: error }, 'reading messages awaiting hand-over failed');
    });
  }

  return {
    enqueue,
    resume,
    /**
     * Resumes again unless a resume is still reading: on a database several instances share, what
     * one left QUEUED when it died. A message another live instance is handing over right now may be
     * handed over twice; the transport dedupes by our handle, so it is sent once.
     */
    rescan(): void {
      if (stopped || readingPage || resumeCursor !== null) return;
      void resumePage(0);
    },
    /** Resolves once nothing is queued or in flight (retry timers aside). */
    async idle(): Promise<void> {
      while (inFlight.size > 0 || waiting.length > 0) {
        await Promise.all([...inFlight]);
        await new Promise((resolve) => setImmediate(resolve));
      }
    },
    /** Stops taking work and waits for hand-overs in flight; unfinished messages stay waiting in the database. */
    async stop(): Promise<void> {
      stopped = true;
      for (const timer of retryTimers) clearTimeout(timer);
      retryTimers.clear();
      waiting.length = 0;
      await Promise.all([...inFlight]);
    },
  };
}

export type Courier = ReturnType<typeof createCourier>;
