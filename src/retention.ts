import { setTimeout as sleep } from 'node:timers/promises';
import { IDEMPOTENCY_WINDOW_MS } from './domain/limits.ts';
import type { Metrics } from './metrics/metrics.ts';
import { pruneAccountEvents } from './services/account-events.ts';
import { pruneDeliveries } from './services/callback-deliveries.ts';
import type { ServiceDeps } from './services/deps.ts';
import { pruneExpiredIdempotencyKeys } from './services/idempotency.ts';
import { pruneExpiredInboxSessions } from './services/inbox-sessions.ts';
import { pruneMediaObjects } from './services/media.ts';
import { pruneOrphanEvents } from './services/orphan-events.ts';
import { PRUNED_TABLES, type PrunedTable } from './services/pruning.ts';
import { isOutage, storageTrouble } from './services/storage-errors.ts';
import { pruneUnroutedInbound } from './services/unrouted-inbound.ts';

const DAY_MS = 86_400_000;

export type RetentionOptions = {
  /** How long a delivered or given-up delivery stays in the log; 0 keeps it forever. */
  deliveryRetentionMs: number;
  /** How long a status event for a handle no message has waits for its message; 0 keeps it forever. */
  orphanEventRetentionMs: number;
  /** How long an inbound message for a line no account owns stays for the operator to see; 0 keeps it forever. */
  unroutedRetentionMs: number;
  /** How long an event stays in the account event log (and a stream can resume past it); 0 keeps it forever. */
  eventRetentionMs?: number;
  /** How long an uploaded file is served (a group's current photo stays); 0 keeps files forever. */
  mediaRetentionMs?: number;
  /** Time between two passes. */
  intervalMs?: number;
  /** The first pass comes this long after start, once the server is serving. */
  firstPassAfterMs?: number;
  /** Between two batches of a pass: requests get the event loop and the write lock in between. */
  batchPauseMs?: number;
};

const RETENTION_DEFAULTS = {
  eventRetentionMs: 7 * DAY_MS,
  mediaRetentionMs: 0,
  intervalMs: 3_600_000,
  firstPassAfterMs: 60_000,
  batchPauseMs: 20,
} as const;

export function retentionOptionsFromConfig(config: {
  TEXTRELAY_DELIVERY_RETENTION_DAYS: number;
  TEXTRELAY_ORPHAN_EVENT_RETENTION_DAYS: number;
  TEXTRELAY_UNROUTED_RETENTION_DAYS: number;
  TEXTRELAY_EVENT_RETENTION_DAYS: number;
  TEXTRELAY_MEDIA_RETENTION_DAYS: number;
}): RetentionOptions {
  return {
    deliveryRetentionMs: config.TEXTRELAY_DELIVERY_RETENTION_DAYS * DAY_MS,
    orphanEventRetentionMs: config.TEXTRELAY_ORPHAN_EVENT_RETENTION_DAYS * DAY_MS,
    unroutedRetentionMs: config.TEXTRELAY_UNROUTED_RETENTION_DAYS * DAY_MS,
    eventRetentionMs: config.TEXTRELAY_EVENT_RETENTION_DAYS * DAY_MS,
    mediaRetentionMs: config.TEXTRELAY_MEDIA_RETENTION_DAYS * DAY_MS,
  };
}

/** Rows each table lost in one pass. */
export type PassResult = Record<PrunedTable, number>;

/** One table's share of a pass: its batches (lazy: nothing runs until walked), and what the log line says. */
type TablePass = { table: PrunedTable; message: string; before: number; batches: AsyncIterable<number> };

/**
 * Removes, once an hour, the rows of the tables that would otherwise only grow: delivered or
 * given-up deliveries past their retention (with their attempts), idempotency keys past the replay
 * window, expired inbox sessions, status events whose message never became known, old unrouted
 * inbound messages, old account events and old media objects (not a group's current photo).
 */
export function createRetention(deps: ServiceDeps & { metrics: Pick<Metrics, 'rowsPruned'> }, options: RetentionOptions) {
  const settings = { ...RETENTION_DEFAULTS, ...options };
  let timer: NodeJS.Timeout | undefined;
  let pass: Promise<unknown> | undefined;
  let stopping = false;

  function tablePasses(now: number): TablePass[] {
    const deliveriesBefore = now - settings.deliveryRetentionMs;
    const orphansBefore = now - settings.orphanEventRetentionMs;
    const unroutedBefore = now - settings.unroutedRetentionMs;
    const eventsBefore = now - settings.eventRetentionMs;
    const mediaBefore = now - settings.mediaRetentionMs;
    return [
      ...(settings.deliveryRetentionMs > 0
        ? [
            {
              table: 'webhook_deliveries',
              message: 'forgot old webhook deliveries',
              before: deliveriesBefore,
              batches: pruneDeliveries(deps, deliveriesBefore),
            } as const,
          ]
        : []),
      {
        table: 'idempotency_keys',
        message: 'forgot idempotency keys past the replay window',
        before: now - IDEMPOTENCY_WINDOW_MS,
        batches: pruneExpiredIdempotencyKeys(deps, now),
      },
      { table: 'inbox_sessions', message: 'forgot expired inbox sessions', before: now, batches: pruneExpiredInboxSessions(deps, now) },
      ...(settings.orphanEventRetentionMs > 0
        ? [
            {
              table: 'orphan_status_events',
              message: 'dropped status events whose message never became known',
              before: orphansBefore,
              batches: pruneOrphanEvents(deps, orphansBefore),
            } as const,
          ]
        : []),
      ...(settings.unroutedRetentionMs > 0
        ? [
            {
              table: 'unrouted_inbound',
              message: 'forgot old unrouted inbound messages',
              before: unroutedBefore,
              batches: pruneUnroutedInbound(deps, unroutedBefore),
            } as const,
          ]
        : []),
      ...(settings.eventRetentionMs > 0
        ? [
            {
              table: 'account_events',
              message: 'forgot account events past their retention',
              before: eventsBefore,
              batches: pruneAccountEvents(deps, eventsBefore),
            } as const,
          ]
        : []),
      ...(settings.mediaRetentionMs > 0
        ? [
            {
              table: 'media_objects',
              message: 'forgot media objects past their retention',
              before: mediaBefore,
              batches: pruneMediaObjects(deps, mediaBefore),
            } as const,
          ]
        : []),
    ];
  }

  /** One pass over every table: the rows each lost. */
  async function prunePass(): Promise<PassResult> {
    const result = Object.fromEntries(PRUNED_TABLES.map((table) => [table, 0])) as PassResult;
    for (const { table, message, before, batches } of tablePasses(deps.clock.now())) {
      for await (const pruned of batches) {
        result[table] += pruned;
        deps.metrics.rowsPruned(table, pruned);
        if (stopping) break;
        await sleep(settings.batchPauseMs);
      }
      if (result[table] > 0) deps.log.info({ table, pruned: result[table], before: new Date(before).toISOString() }, message);
      if (stopping) break;
    }
    return result;
  }

  function schedule(delayMs: number): void {
    timer = setTimeout(() => {
      pass = prunePass()
        .catch((error: unknown) => {
          // The storage's trouble passes (a full disk, a lock held too long): the next pass does the work.
          if (isOutage(error)) return;
          if (storageTrouble(error)) deps.log.warn({ err: error }, 'removing old rows failed; trying again at the next pass');
          else deps.log.error({ err: error }, 'removing old rows crashed');
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
      if (timer === undefined) schedule(settings.firstPassAfterMs);
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
