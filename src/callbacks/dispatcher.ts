import type { ClaimedDelivery, FinishedDelivery } from '../db/store.ts';
import { createCallbackClaims } from '../domain/callback-claims.ts';
import type { Metrics } from '../metrics/metrics.ts';
import { recordAndClaim, recordAttempts, releaseDeliveries } from '../services/callback-dispatch.ts';
import type { ServiceDeps } from '../services/deps.ts';
import { isOutage, storageTrouble } from '../services/storage-errors.ts';
import { createPoster } from './attempt.ts';
import { type DispatcherOptions, dispatcherSettings } from './dispatcher-options.ts';

/**
 * While posts are in flight, recording and claiming wait this long to gather the answers that
 * arrive meanwhile: one transaction per few milliseconds instead of one per answer, which is what
 * lets throughput grow past a few thousand deliveries a second. 3 ms rather than 1: fewer commits
 * under load, for at most 2 ms more between a callback and the next one of its message. An idle
 * dispatcher claims at once.
 */
const BATCH_WINDOW_MS = 3;

/**
 * Delivers the webhook outbox: claims due rows with a lease, signs and POSTs each, records every
 * attempt and reschedules failures. The database is the queue; this object only paces it, so a
 * crash loses nothing (lapsed leases return rows to the queue) and several processes may run one.
 */
export function createDispatcher(deps: ServiceDeps & { metrics: Pick<Metrics, 'deliveryAttempt'> }, options: DispatcherOptions) {
  const settings = dispatcherSettings(options);
  const poster = createPoster(deps, settings);
  const claims = createCallbackClaims({
    concurrency: settings.concurrency,
    perHostLimit: settings.perHostConcurrency,
    perAccountLimit: settings.perAccountConcurrency,
  });
  const inFlight = new Map<number, { row: ClaimedDelivery; done: Promise<void> }>();
  let answered: FinishedDelivery[] = [];
  let running = false;
  let stopping = false;
  let stepQueued = false;
  /** While runOnce drives the steps itself: a post that ends queues none, or its answers would be recorded after runOnce returned. */
  let drivenOnce = false;
  /** The step running now, if any: steps run one after another, never two claims at once. */
  let stepping: Promise<unknown> = Promise.resolve();
  let pollTimer: NodeJS.Timeout | undefined;

  /** Records the answers gathered so far, without claiming (shutdown). */
  async function recordAnswered(): Promise<void> {
    const batch = answered;
    answered = [];
    try {
      await recordAttempts(deps, batch);
    } catch (error) {
      // The rows keep their leases and return to the queue when those lapse: nothing is lost.
      if (!isOutage(error)) deps.log.error({ err: error, count: batch.length }, 'recording webhook attempts failed');
    }
  }

  function post(row: ClaimedDelivery): void {
    claims.postStarted(row);
    const done = poster
      .attempt(row)
      .then((result) => {
        if (stopping && !running && !inFlight.has(row.seq)) return; // given back already at shutdown
        answered.push(result);
      })
      .catch((error: unknown) => deps.log.error({ err: error, webhookId: row.webhookId }, 'webhook attempt crashed'))
      .finally(() => {
        inFlight.delete(row.seq);
        claims.postEnded(row);
        // Recording the answer frees a slot and may let the next callback of the same message go.
        queueStep();
      });
    inFlight.set(row.seq, { row, done });
  }

  /** One turn of the loop: records the answers gathered, claims what may go next, posts it. Returns how many posts it started. */
  async function step(): Promise<number> {
    if (stopping || (claims.freeSlots() <= 0 && answered.length === 0)) {
      await recordAnswered();
      return 0;
    }
    const batch = answered;
    answered = [];
    const claim = claims.claim();
    let rows: ClaimedDelivery[];
    try {
      rows = await recordAndClaim(deps, batch, claim, settings.leaseMs);
    } catch (error) {
      // A full disk or a read-only file passes: its answers are recorded at a later step (while their
      // leases hold). Otherwise the answered rows return to the queue when their leases lapse: nothing is lost.
      if (storageTrouble(error) !== undefined) answered = batch.concat(answered);
      if (!isOutage(error)) deps.log.error({ err: error, count: batch.length }, 'recording webhook attempts or claiming failed');
      return 0;
    }
    for (const row of rows) post(row);
    if (claim.committed()) queueStep();
    return rows.length;
  }

  function queueStep(): void {
    if (stepQueued || drivenOnce) return;
    stepQueued = true;
    const run = () => {
      stepQueued = false;
      stepping = stepping.then(async () => {
        if (running) await step();
        else await recordAnswered();
      });
    };
    // Deferred: wake() is called right after commits, possibly from inside an outer transaction.
    if (inFlight.size === 0) setImmediate(run);
    else setTimeout(run, BATCH_WINDOW_MS);
  }

  const allPosted = () => Promise.all([...inFlight.values()].map((entry) => entry.done));

  return {
    /** Runs the loop with real timers: woken by wake(), and polling every pollIntervalMs. */
    start(): void {
      if (running || stopping) return;
      running = true;
      pollTimer = setInterval(() => {
        // Retries fall due with time alone.
        claims.callbacksChanged();
        queueStep();
      }, settings.pollIntervalMs);
      pollTimer.unref();
      queueStep();
    },

    /** New rows are due: claim them now rather than at the next poll. */
    wake(): void {
      claims.callbacksChanged();
      if (running) queueStep();
    },

    /**
     * Delivers everything due at `deps.clock.now()`, including the callbacks that become due
     * because the one before them finished, and resolves with the number of attempts made.
     * For tests and tools driving the clock; not to be mixed with start().
     */
    async runOnce(): Promise<number> {
      claims.restart();
      drivenOnce = true;
      let attempts = 0;
      try {
        for (;;) {
          const started = await step();
          attempts += started;
          if (started === 0 && inFlight.size === 0) break;
          await allPosted();
        }
      } finally {
        drivenOnce = false;
      }
      return attempts;
    },

    /** Stops claiming, lets posts in flight finish for up to shutdownGraceMs, then gives the rest back to the queue. */
    async stop(): Promise<void> {
      if (stopping) return;
      stopping = true;
      running = false;
      clearInterval(pollTimer);
      let timer: NodeJS.Timeout | undefined;
      const grace = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, settings.shutdownGraceMs);
      });
      await Promise.race([allPosted(), grace]);
      clearTimeout(timer);
      await stepping;
      await recordAnswered();
      const unfinished = [...inFlight.values()].map((entry) => entry.row);
      inFlight.clear();
      if (unfinished.length > 0) {
        try {
          await releaseDeliveries(deps, unfinished);
        } catch (error) {
          deps.log.error({ err: error, count: unfinished.length }, 'giving back webhook leases failed; they lapse on their own');
        }
      }
      await poster.close();
    },
  };
}

export type Dispatcher = ReturnType<typeof createDispatcher>;
