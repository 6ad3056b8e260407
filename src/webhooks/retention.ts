import { setTimeout as sleep } from 'node:timers/promises';
import type { ServiceDeps } from '../services/deps.ts';
import { storageTrouble } from '../services/storage-errors.ts';
import { pruneDeliveries } from '../services/webhook-deliveries.ts';

const DAY_MS = 86_400_000;

export type RetentionOptions = {
  /** How long a delivered or given-up delivery stays in the log; 0 keeps it forever. */
  retentionMs: number;
  /** Time between two passes over the log. */
  intervalMs?: number;
  /** The first pass comes this long after start, once the server is serving. */
  firstPassAfterMs?: number;
  /** Between two batches of a pass: requests get the event loop and the write lock in between. */
  batchPauseMs?: number;
};

const RETENTION_DEFAULTS = { intervalMs: 3_600_000, firstPassAfterMs: 60_000, batchPauseMs: 20 } as const;

export function retentionOptionsFromConfig(config: { TEXTRELAY_DELIVERY_RETENTION_DAYS: number }): RetentionOptions {
  return { retentionMs: config.TEXTRELAY_DELIVERY_RETENTION_DAYS * DAY_MS };
}

/**
 * Forgets deliveries (with their attempts) delivered or given up longer ago than the retention,
 * once an hour: the outbox writes a row per callback and attempt, so without this the file grows
 * with every message for as long as the service runs.
 */
export function createDeliveryLogRetention(deps: ServiceDeps, options: RetentionOptions) {
  const settings = { ...RETENTION_DEFAULTS, ...options };
  let timer: NodeJS.Timeout | undefined;
  let pass: Promise<number> | undefined;
  let stopping = false;

  /** One pass over the log: the deliveries it forgot. */
  async function prunePass(): Promise<number> {
    const cutoff = deps.clock.now() - settings.retentionMs;
    let pruned = 0;
    for (const forgotten of pruneDeliveries(deps, cutoff)) {
      pruned += forgotten;
      if (stopping) break;
      await sleep(settings.batchPauseMs);
    }
    if (pruned > 0) deps.log.info({ pruned, finishedBefore: new Date(cutoff).toISOString() }, 'forgot old webhook deliveries');
    return pruned;
  }

  function schedule(delayMs: number): void {
    timer = setTimeout(() => {
      pass = prunePass()
        .catch((error: unknown) => {
          // The storage's trouble passes (a full disk, a lock held too long): the next pass does the work.
          if (storageTrouble(error)) deps.log.warn({ err: error }, 'forgetting old webhook deliveries failed; trying again at the next pass');
          else deps.log.error({ err: error }, 'forgetting old webhook deliveries crashed');
          return 0;
        })
        .finally(() => {
          pass = undefined;
          if (!stopping) schedule(settings.intervalMs);
        });
    }, delayMs);
    timer.unref();
  }

  return {
    start(): void {
      if (settings.retentionMs > 0 && timer === undefined) schedule(settings.firstPassAfterMs);
    },
    /** A pass now, outside the schedule (tests). */
    prunePass,
    /** Ends the schedule; a pass under way stops after its current batch. */
    async stop(): Promise<void> {
      stopping = true;
      clearTimeout(timer);
      await pass;
    },
  };
}
