import { outboundPolicyOf } from '../config.ts';
import type { OutboundPolicy } from '../domain/address-policy.ts';
import { nextDelay, parseRetrySchedule, type AttemptResult } from '../domain/retry-policy.ts';
import { remembering } from '../domain/remembering.ts';
import type { ClaimedDelivery, ClaimFilter, DeliveryOutcome, DuePosition, FinishedDelivery } from '../db/queries/outbox.ts';
import type { Metrics } from '../metrics/metrics.ts';
import type { ServiceDeps } from '../services/deps.ts';
import { finishAndClaimDeliveries, finishDeliveries, finishedDelivery, releaseDeliveries, signingSecretOf } from '../services/webhook-dispatch.ts';
import { storageTrouble } from '../services/storage-errors.ts';
import { createGuardedAgent } from '../outbound/guarded-client.ts';
import { VERSION } from '../version.ts';
import { createDueScan } from './due-scan.ts';
import { postWebhook, type PostResult } from './post.ts';
import { signatureHeaders } from './signing.ts';

export type DispatcherOptions = {
  /** Pauses between attempts, in ms (contract default 5 s ... 24 h); a delivery fails once they are spent. */
  retryScheduleMs: readonly number[];
  /** The addresses callbacks may reach, checked on the address each connection goes to. */
  outboundPolicy: OutboundPolicy;
  /** One attempt's whole exchange (connect, answer, body). */
  timeoutMs?: number;
  /** Posts in flight at once, overall and per destination host (so one slow receiver cannot take every slot). */
  concurrency?: number;
  perHostConcurrency?: number;
  /** How long a claim holds a row; a dispatcher that dies mid-post gives it up after this. Longer than timeoutMs. */
  leaseMs?: number;
  /** The loop also polls this often: other processes (CLI commands) write outbox rows too. */
  pollIntervalMs?: number;
  /** On stop, how long posts in flight may take to finish before their rows are given back. */
  shutdownGraceMs?: number;
  /** Jitter source, in [0, 1). */
  random?: () => number;
};

export const DISPATCHER_DEFAULTS = {
  timeoutMs: 10_000,
  concurrency: 256,
  perHostConcurrency: 64,
  leaseMs: 60_000,
  pollIntervalMs: 1_000,
  shutdownGraceMs: 5_000,
} as const;

/** The options a server builds from its configuration. */
export function dispatcherOptionsFromConfig(config: {
  TEXTRELAY_WEBHOOK_RETRY_SCHEDULE: string;
  TEXTRELAY_ALLOW_PRIVATE_CALLBACKS: boolean;
  TEXTRELAY_ALLOW_LINK_LOCAL_CALLBACKS: boolean;
}): DispatcherOptions {
  return {
    retryScheduleMs: parseRetrySchedule(config.TEXTRELAY_WEBHOOK_RETRY_SCHEDULE),
    outboundPolicy: outboundPolicyOf(config),
  };
}

/** Upper bound on rows a claim looks at, per free slot. */
const CLAIM_SCAN_FACTOR = 4;
/** Rows of saturated hosts a claim may pass over to find other hosts' rows. */
const SKIP_BUDGET = 64;
/**
 * While posts are in flight, finishing and claiming wait this long to gather the answers that
 * arrive meanwhile: one transaction per few milliseconds instead of one per answer, which is what
 * lets throughput grow past a few thousand deliveries a second. 3 ms rather than 1: 30% fewer
 * commits under load, for at most 2 ms more between a callback and the next one of its message.
 * An idle dispatcher claims at once.
 */
const BATCH_WINDOW_MS = 3;

/**
 * Per-host limits look at every row's host, twice per delivery: parsing its URL each time was a
 * fiftieth of the dispatcher's CPU, while a batch's rows mostly share a few URLs.
 */
const hostOf = remembering((url) => new URL(url).host, 1_000);

function attemptResultOf(post: PostResult): AttemptResult {
  if (post.statusCode !== null && post.statusCode >= 200 && post.statusCode < 300) return { kind: 'success' };
  if (post.statusCode === 410) return { kind: 'gone' };
  return { kind: 'failure', retryAfterMs: post.retryAfterMs };
}

/**
 * Delivers the webhook outbox: claims due rows with a lease, signs and POSTs each, records every
 * attempt and reschedules failures. The database is the queue; this object only paces it, so a
 * crash loses nothing (lapsed leases return rows to the queue) and several processes may run one.
 */
export function createDispatcher(deps: ServiceDeps & { metrics: Pick<Metrics, 'deliveryAttempt'> }, options: DispatcherOptions) {
  const settings = { ...DISPATCHER_DEFAULTS, ...options };
  const random = options.random ?? Math.random;
  const userAgent = `textrelay/${VERSION}`;
  const agent = createGuardedAgent(settings.outboundPolicy, { keepAliveTimeout: 30_000, connections: settings.perHostConcurrency });

  const inFlight = new Map<number, { row: ClaimedDelivery; done: Promise<void> }>();
  const hostLoad = new Map<string, number>();
  let finished: FinishedDelivery[] = [];
  let running = false;
  let stopping = false;
  let tickQueued = false;
  let pollTimer: NodeJS.Timeout | undefined;
  const dueScan = createDueScan(settings.perHostConcurrency);

  function finishedAttempt(row: ClaimedDelivery, post: PostResult, attemptedAt: number): FinishedDelivery {
    const decision = nextDelay(row.attemptCount + 1, attemptResultOf(post), settings.retryScheduleMs, random);
    const outcome: DeliveryOutcome =
      decision.action === 'delivered'
        ? { kind: 'delivered' }
        : decision.action === 'give_up'
          ? { kind: 'failed' }
          : { kind: 'retry', nextAttemptAt: deps.clock.now() + decision.delayMs };
    deps.metrics.deliveryAttempt(outcome.kind);
    const attempt = { attemptedAt, durationMs: post.durationMs, statusCode: post.statusCode, responseExcerpt: post.excerpt, error: post.error };
    return finishedDelivery(row, attempt, outcome);
  }

  async function attempt(row: ClaimedDelivery): Promise<FinishedDelivery> {
    const attemptedAt = deps.clock.now();
    const secrets = {
      webhookSecret: signingSecretOf(deps, row),
      previousWebhookSecret: row.previousWebhookSecret,
      previousWebhookSecretExpiresAt: row.previousWebhookSecretExpiresAt,
    };
    const headers = {
      'content-type': 'application/json',
      'user-agent': userAgent,
      ...signatureHeaders(row.webhookId, attemptedAt, row.payload, secrets),
    };
    return finishedAttempt(row, await postWebhook(agent, row.url, headers, row.payload, settings.timeoutMs, attemptedAt), attemptedAt);
  }

  /** Writes the finished attempts in one transaction, without claiming (shutdown). */
  function flush(): void {
    if (finished.length === 0) return;
    const batch = finished;
    finished = [];
    try {
      finishDeliveries(deps, batch);
    } catch (error) {
      // The rows keep their leases and return to the queue when those lapse: nothing is lost.
      deps.log.error({ err: error, count: batch.length }, 'recording webhook attempts failed');
    }
  }

  function launch(row: ClaimedDelivery): void {
    const host = hostOf(row.url);
    hostLoad.set(host, (hostLoad.get(host) ?? 0) + 1);
    const done = attempt(row)
      .then((result) => {
        if (stopping && !running && !inFlight.has(row.seq)) return; // given back already at shutdown
        finished.push(result);
      })
      .catch((error: unknown) => deps.log.error({ err: error, webhookId: row.webhookId }, 'webhook attempt crashed'))
      .finally(() => {
        inFlight.delete(row.seq);
        const load = (hostLoad.get(host) ?? 1) - 1;
        if (load === 0) hostLoad.delete(host);
        else hostLoad.set(host, load);
        // Recording the answer frees a slot and may free the next callback of the same message.
        queueTick();
      });
    inFlight.set(row.seq, { row, done });
  }

  /**
   * In one transaction, records the finished attempts and claims as many rows as there are free
   * slots, within each host's limit, then starts them. A finished callback's held follower comes
   * first (it takes the slot its predecessor left, on the same host); then due rows, oldest first.
   * Rows for a saturated host are skipped (they wait in the database, unleased); the scan stops
   * once the slots are filled, or after skipping SKIP_BUDGET rows, and the next tick resumes it
   * there (due-scan.ts): other hosts' rows behind a full host's backlog are reached, without
   * reading that whole backlog on every claim. It also stops at the first row it must skip once
   * the due scan knows that only full hosts' rows lie beyond.
   */
  function settleAndLaunch(): number {
    const batch = finished;
    finished = [];
    const free = settings.concurrency - inFlight.size;
    if (stopping || (free <= 0 && batch.length === 0)) {
      finished = batch;
      flush();
      return 0;
    }
    const planned = new Map<string, number>();
    const loadOf = (host: string) => (hostLoad.get(host) ?? 0) + (planned.get(host) ?? 0);
    const limit = Math.max(free, 1) * CLAIM_SCAN_FACTOR;
    const passedOver = new Set<string>();
    let lastSeen: DuePosition | undefined;
    let seen = 0;
    let passedOverRows = 0;
    let stoppedBy: 'slots' | 'budget' | 'onlyFullHostsBeyond' | undefined;
    let scanned = false;
    let taken = 0;
    const decide: ClaimFilter = (url, position) => {
      if (taken >= free) {
        stoppedBy = 'slots';
        return 'stop';
      }
      if (passedOverRows >= SKIP_BUDGET) {
        stoppedBy = 'budget';
        return 'stop';
      }
      if (position) {
        seen += 1;
        lastSeen = position;
      }
      const host = hostOf(url);
      if (loadOf(host) >= settings.perHostConcurrency) {
        if (position) {
          passedOver.add(host);
          passedOverRows += 1;
          if (!dueScan.worthGoingOn(loadOf)) {
            stoppedBy = 'onlyFullHostsBeyond';
            return 'stop';
          }
        }
        return 'skip';
      }
      planned.set(host, (planned.get(host) ?? 0) + 1);
      taken += 1;
      return 'take';
    };
    let rows: ClaimedDelivery[];
    try {
      rows = finishAndClaimDeliveries(deps, batch, {
        leaseMs: settings.leaseMs,
        limit,
        scanFrom: () => {
          const start = dueScan.start(loadOf);
          scanned = start !== 'none';
          return start;
        },
        accept: (url, position) => {
          const verdict = decide(url, position);
          // A follower not taken is made due: a row the due scan's census does not know of.
          if (!position && verdict !== 'take') dueScan.changed();
          return verdict;
        },
      });
    } catch (error) {
      // A full disk or a read-only file passes: its answers are recorded at a later tick (while their
      // leases hold). Otherwise the finished rows return to the queue when their leases lapse: nothing is lost.
      if (storageTrouble(error) !== undefined) finished = batch.concat(finished);
      deps.log.error({ err: error, count: batch.length }, 'recording webhook attempts or claiming failed');
      return 0;
    }
    const continues =
      scanned &&
      dueScan.finished({
        passedOver,
        lastSeen,
        cutShort: stoppedBy === 'budget' || seen >= limit,
        slotsFull: stoppedBy === 'slots',
        onlyFullHostsBeyond: stoppedBy === 'onlyFullHostsBeyond',
      });
    for (const row of rows) launch(row);
    if (continues) queueTick();
    return rows.length;
  }

  function tick(): void {
    tickQueued = false;
    if (running) settleAndLaunch();
    else flush();
  }

  function queueTick(): void {
    if (tickQueued) return;
    tickQueued = true;
    // Deferred: wake() is called right after commits, possibly from inside an outer transaction.
    if (inFlight.size === 0) setImmediate(tick);
    else setTimeout(tick, BATCH_WINDOW_MS);
  }

  return {
    /** Runs the loop with real timers: woken by wake(), and polling every pollIntervalMs. */
    start(): void {
      if (running || stopping) return;
      running = true;
      pollTimer = setInterval(() => {
        // Retries fall due with time alone.
        dueScan.changed();
        queueTick();
      }, settings.pollIntervalMs);
      pollTimer.unref();
      queueTick();
    },

    /** New rows are due: claim them now rather than at the next poll. */
    wake(): void {
      dueScan.changed();
      if (running) queueTick();
    },

    /**
     * Delivers everything due at `deps.clock.now()`, including the callbacks that become due
     * because the one before them finished, and resolves with the number of attempts made.
     * For tests and tools driving the clock; not to be mixed with start().
     */
    async runOnce(): Promise<number> {
      dueScan.reset();
      let attempts = 0;
      for (;;) {
        const launched = settleAndLaunch();
        attempts += launched;
        if (launched === 0 && inFlight.size === 0) break;
        await Promise.all([...inFlight.values()].map((entry) => entry.done));
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
      await Promise.race([Promise.all([...inFlight.values()].map((entry) => entry.done)), grace]);
      clearTimeout(timer);
      flush();
      const unfinished = [...inFlight.values()].map((entry) => entry.row);
      inFlight.clear();
      if (unfinished.length > 0) {
        try {
          releaseDeliveries(deps, unfinished);
        } catch (error) {
          deps.log.error({ err: error, count: unfinished.length }, 'giving back webhook leases failed; they lapse on their own');
        }
      }
      await agent.destroy();
    },
  };
}

export type Dispatcher = ReturnType<typeof createDispatcher>;
