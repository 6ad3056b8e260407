import { ErrorCode } from '../domain/error-codes.ts';
import { createFairLanes, type FairLanes } from '../domain/fair-lanes.ts';
import type { ServiceDeps } from '../services/deps.ts';
import {
  failHandover,
  type HandoverReceipt,
  type HandoverSender,
  messageAwaitingHandover,
  type OutboundMessage,
  recordHandover,
  senderOf,
} from '../services/handover.ts';
import { isOutage, storageTrouble } from '../services/storage-errors.ts';
import { createResumeReader, senderKey } from './courier-resume.ts';
import { type Transport, TransportRefusal, TransportUnavailable } from './transport.ts';

export type CourierOptions = {
  /** Pauses between hand-over attempts after a retryable failure; once spent, the message fails with 10001. */
  retryDelaysMs: readonly number[];
  /** Hand-overs in flight at once per carrier (per route of the transport). */
  concurrency: number;
  /** Hand-overs of one account in flight at once per carrier; by default a quarter of `concurrency`. */
  perAccount?: number;
};

/** Upstream outages of a few minutes are ridden out; longer ones fail the message so the client hears about it. */
export const DEFAULT_COURIER_OPTIONS: CourierOptions = {
  retryDelaysMs: [1_000, 5_000, 15_000, 60_000, 120_000],
  concurrency: 32,
  perAccount: 8,
};

/** A message to hand over: `attempt` counts failed posts; once the transport accepted it, `receipt` holds its answer and `recordings` the failed notes of it. */
type Work = { handle: string; sender: HandoverSender; attempt: number; receipt?: HandoverReceipt; recordings?: number };

/** A hand-over's place among its lane's posts: it posts once `previous` did, then calls `posted`. */
type PostingTurn = { previous: Promise<void>; posted: () => void };

/**
 * Carries committed QUEUED messages to the transport, outside the request that stored them.
 * Each carrier (route) has its own slots, shared between accounts in turn (domain/fair-lanes.ts):
 * a lane per account and carrier, first in first out, capped at `perAccount` in flight.
 * A failed hand-over is retried with backoff; after a crash `resume` finds every message still
 * waiting (the database is the queue, this object only paces it).
 */
export function createCourier(deps: ServiceDeps, transport: Transport, options: CourierOptions = DEFAULT_COURIER_OPTIONS) {
  const limits = { slots: options.concurrency, perLane: options.perAccount ?? Math.max(1, Math.floor(options.concurrency / 4)) };
  /** Each route's lanes, by the route's name. */
  const routes = new Map<string, FairLanes<Work>>();
  /** Each line's route, as the transport answered (asked once per line). */
  const routeOfLine = new Map<string, Promise<string>>();
  /** Each sender's (account and line's) messages waiting in its lane, by senderKey: a resume reads on as they run low. */
  const queuedBySender = new Map<string, number>();
  /** Per lane, the turn of its latest hand-over to post. */
  const lastPosting = new Map<string, Promise<void>>();
  const busy = new Set<string>();
  /** Every message this courier has work for (waiting, in flight or waiting to retry): a resume does not queue it twice. */
  const held = new Set<string>();
  /** The messages among them waiting for a retry timer. */
  const retrying = new Set<string>();
  const retryTimers = new Set<NodeJS.Timeout>();
  const inFlight = new Set<Promise<void>>();
  /** Messages on their way into a lane (their route or sender being looked up). */
  let placing = 0;
  let pumpPending = false;
  let stopped = false;
  const resumer = createResumeReader(deps, {
    enqueue,
    queued: (sender) => queuedBySender.get(senderKey(sender)) ?? 0,
  });

  function countQueued(sender: HandoverSender, change: 1 | -1): void {
    const key = senderKey(sender);
    const count = (queuedBySender.get(key) ?? 0) + change;
    if (count > 0) queuedBySender.set(key, count);
    else queuedBySender.delete(key);
  }

  function routeFor(lineNumber: string): Promise<string> {
    if (!transport.routeOf) return Promise.resolve(transport.name);
    let route = routeOfLine.get(lineNumber);
    if (!route) {
      route = transport.routeOf(lineNumber).catch((error: unknown) => {
        // Asked again for the next message; this one waits in the transport's common lane rather than not at all.
        routeOfLine.delete(lineNumber);
        if (!isOutage(error)) deps.log.warn({ err: error, lineNumber }, 'could not tell the carrier of a line');
        return transport.name;
      });
      routeOfLine.set(lineNumber, route);
    }
    return route;
  }

  function lanesOf(route: string): FairLanes<Work> {
    let lanes = routes.get(route);
    if (!lanes) {
      lanes = createFairLanes<Work>(limits);
      routes.set(route, lanes);
    }
    return lanes;
  }

  /** Queues `work` in its lane: at the back, or at the front for a retry (it was sent before what waits behind it). */
  function place(work: Work, options: { retry?: boolean } = {}): void {
    countQueued(work.sender, 1);
    placing += 1;
    // Awaited even when known, so messages of one line keep their order whatever the lookup took.
    void routeFor(work.sender.lineNumber).then((route) => {
      placing -= 1;
      if (stopped) return;
      lanesOf(route).push(work.sender.accountId, work, { first: options.retry ?? false });
      pumpSoon();
    });
  }

  /** Deferred: the caller may still be inside the transaction that stored the message. */
  function pumpSoon(): void {
    if (pumpPending) return;
    pumpPending = true;
    setImmediate(() => {
      pumpPending = false;
      pump();
    });
  }

  function retryLater(work: Work, delayMs: number): void {
    retrying.add(work.handle);
    const timer = setTimeout(() => {
      retryTimers.delete(timer);
      retrying.delete(work.handle);
      place(work, { retry: true });
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

  /** Calls the transport, then lets the next of the lane call it: a lane's posts start in the order its hand-overs did. */
  function postInTurn(message: OutboundMessage, turn: PostingTurn): Promise<HandoverReceipt> {
    try {
      return transport.send(message);
    } finally {
      turn.posted();
    }
  }

  async function handOver(work: Work, turn: PostingTurn): Promise<void> {
    const { handle, attempt } = work;
    let message: OutboundMessage | undefined;
    try {
      if (work.receipt) return await record({ ...work, receipt: work.receipt });
      message = await messageAwaitingHandover(deps, handle);
      await turn.previous;
    } finally {
      if (!message) turn.posted();
    }
    if (!message) return;
    let receipt: HandoverReceipt;
    try {
      receipt = await postInTurn(message, turn);
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
        retryLater({ ...work, attempt: attempt + 1 }, options.retryDelaysMs[attempt] ?? 0);
      }
      return;
    }
    await record({ ...work, receipt });
  }

  /** Takes the next posting turn of lane `key` (a route's account). */
  function postingTurn(key: string): PostingTurn {
    const previous = lastPosting.get(key) ?? Promise.resolve();
    let posted: () => void = () => {};
    const mine = new Promise<void>((resolve) => (posted = resolve));
    lastPosting.set(key, mine);
    void mine.then(() => {
      if (lastPosting.get(key) === mine) lastPosting.delete(key);
    });
    return { previous, posted };
  }

  function start(routeName: string, route: FairLanes<Work>, lane: string, next: Work): void {
    countQueued(next.sender, -1);
    resumer.drained(next.sender);
    if (busy.has(next.handle)) {
      route.done(lane);
      return;
    }
    busy.add(next.handle);
    const work: Promise<void> = handOver(next, postingTurn(`${routeName}\n${lane}`))
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
        route.done(lane);
        pump();
      });
    inFlight.add(work);
  }

  function pump(): void {
    for (const [name, route] of routes) {
      while (!stopped) {
        const next = route.take();
        if (!next) break;
        start(name, route, next.lane, next.item);
      }
    }
  }

  /**
   * A message to hand over from its first attempt, unless this courier already has work for it.
   * `sender` (its account and line) places it in its lane; without it, the message is read first.
   */
  function enqueue(handle: string, sender?: HandoverSender): void {
    if (stopped || held.has(handle)) return;
    held.add(handle);
    if (sender) {
      place({ handle, sender, attempt: 0 });
      return;
    }
    placing += 1;
    void senderOf(deps, handle)
      .then((found) => {
        if (!found || stopped) return void held.delete(handle);
        place({ handle, sender: found, attempt: 0 });
      })
      .catch((error: unknown) => {
        // Left QUEUED: the next start (or rescan) finds it.
        held.delete(handle);
        if (!isOutage(error)) deps.log.error({ err: error, handle }, 'could not read a message to hand over');
      })
      .finally(() => {
        placing -= 1;
      });
  }

  const waiting = () => [...routes.values()].reduce((sum, route) => sum + route.waiting, 0);

  return {
    enqueue,
    /** Queues every message that was accepted but never handed over: each sender's first page now, the rest as its lane drains. */
    resume: resumer.resume,
    /**
     * Looks again for senders with waiting messages: on a database several instances share, what
     * one left QUEUED when it died. A message another live instance is handing over right now may be
     * handed over twice; the transport dedupes by our handle, so it is sent once.
     */
    rescan: resumer.rescan,
    /** Resolves once nothing is queued or in flight (retry timers aside). */
    async idle(): Promise<void> {
      while (inFlight.size > 0 || waiting() > 0 || placing > 0 || resumer.busy) {
        await Promise.all([...inFlight, resumer.settled()]);
        await new Promise((resolve) => setImmediate(resolve));
      }
    },
    /** Stops taking work and waits for hand-overs in flight; unfinished messages stay waiting in the database. */
    async stop(): Promise<void> {
      stopped = true;
      for (const timer of retryTimers) clearTimeout(timer);
      retryTimers.clear();
      resumer.stop();
      for (const route of routes.values()) route.clear();
      await Promise.all([...inFlight, resumer.settled()]);
    },
  };
}

export type Courier = ReturnType<typeof createCourier>;
