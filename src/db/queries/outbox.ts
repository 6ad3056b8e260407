import { and, asc, count, desc, eq, gte, inArray, lte, type SQL, sql } from 'drizzle-orm';
import { type DeliveryState, WAITS_FOR_EARLIER_CALLBACK } from '../../domain/delivery-views.ts';
import type { Db } from '../connection.ts';
import type { PruneBatch } from '../oldest-rows.ts';
import { webhookAttempts, webhookDeliveries } from '../schema.ts';
import { deliveryClaimQueries } from './delivery-claims.ts';

export type WebhookDeliveryRow = typeof webhookDeliveries.$inferSelect;
export type WebhookAttemptRow = typeof webhookAttempts.$inferSelect;

/** A callback to send: the rest of the row (state, attempts, timestamps) starts the same for all. */
export type OutboxEntry = Pick<WebhookDeliveryRow, 'webhookId' | 'accountId' | 'messageHandle' | 'eventType' | 'url' | 'payload'>;

export type DeliveryFilter = { state?: DeliveryState | undefined; limit: number; offset: number };

type RawLogEntry = { seq: number; state: DeliveryState; created_at: number; completed_at: number | null };

/** Which given-up deliveries: of one account or all, failed by `until`, at most `limit`. */
export type FailedWindow = { accountId?: string | undefined; until?: number; limit?: number };

function failedWhere(since: number, { accountId, until }: FailedWindow): SQL | undefined {
  return and(
    // A literal, not a bound value: only then can SQLite use the partial index on failed rows.
    sql`${webhookDeliveries.state} = 'failed'`,
    gte(webhookDeliveries.completedAt, since),
    until === undefined ? undefined : lte(webhookDeliveries.completedAt, until),
    accountId === undefined ? undefined : eq(webhookDeliveries.accountId, accountId),
  );
}

export function outboxQueries(db: Db) {
  const client = db.$client;

  /*
   * A row with an unfinished row ahead of it for the same message and URL waits (no due time)
   * until that one finishes: claims then read only rows that may go now, instead of reading and
   * passing over a message's later callbacks on every claim. The unary + keeps the planner on
   * webhook_deliveries_order_idx: left to itself it takes the due index for `state =`.
   */
  const enqueue = client.prepare(`
    insert into webhook_deliveries
      (webhook_id, account_id, message_handle, event_type, url, payload, state, next_attempt_at, created_at, updated_at)
    values (@webhookId, @accountId, @messageHandle, @eventType, @url, @payload, 'pending',
      case when exists (select 1 from webhook_deliveries
        where message_handle = @messageHandle and url = @url and +state in ('pending', 'delivering'))
      then ${WAITS_FOR_EARLIER_CALLBACK} else @now end,
      @now, @now)`);

  const replay = client.prepare(`
    update webhook_deliveries set state = 'pending', attempt_count = 0, next_attempt_at = @now, lease_expires_at = null,
      completed_at = null, updated_at = @now
    where seq = @seq and state != 'delivering'`);

  // The log from its oldest row (rowid order), so forgetting old deliveries never needs an index of its own.
  const oldestEntries = client.prepare(`
    select seq, state, created_at, completed_at from webhook_deliveries where seq > @afterSeq order by seq limit +@limit`);
  const deleteAttempts = client.prepare(`delete from webhook_attempts where delivery_seq = ?`);
  const deleteDelivery = client.prepare(`delete from webhook_deliveries where seq = ?`);

  /*
   * A row created at or after the cutoff ends the batch: it and every later row (created later
   * still) finished after the cutoff, if at all. Rows older than the cutoff that are still pending,
   * or finished after it, are stepped over and forgotten by a later run.
   */
  const pruneTransaction = client.transaction((cutoff: number, afterSeq: number, limit: number): PruneBatch => {
    const entries = oldestEntries.all({ afterSeq, limit }) as RawLogEntry[];
    let pruned = 0;
    for (const entry of entries) {
      if (entry.created_at >= cutoff) return { pruned, resumeAfter: null };
      const finished = entry.state === 'delivered' || entry.state === 'failed';
      if (!finished || entry.completed_at === null || entry.completed_at >= cutoff) continue;
      deleteAttempts.run(entry.seq);
      deleteDelivery.run(entry.seq);
      pruned += 1;
    }
    return { pruned, resumeAfter: entries.length < limit ? null : entries.at(-1)!.seq };
  });

  function listWhere(where: SQL | undefined, filter: DeliveryFilter): WebhookDeliveryRow[] {
    return db
      .select()
      .from(webhookDeliveries)
      .where(where)
      .orderBy(desc(webhookDeliveries.seq))
      .limit(filter.limit)
      .offset(filter.offset)
      .all();
  }

  return {
    ...deliveryClaimQueries(db),

    /** Call inside the transaction that records the event, so the change and its callback commit together. */
    enqueue(entry: OutboxEntry, now: number): void {
      enqueue.run({ ...entry, now });
    },

    /** How many deliveries are in each state (webhook_deliveries_due_idx): for metrics and benchmarks. */
    countByState(): Record<DeliveryState, number> {
      const counts: Record<DeliveryState, number> = { pending: 0, delivering: 0, delivered: 0, failed: 0 };
      for (const row of db
        .select({ state: webhookDeliveries.state, total: count() })
        .from(webhookDeliveries)
        .groupBy(webhookDeliveries.state)
        .all()) {
        counts[row.state] = row.total;
      }
      return counts;
    },

    findByWebhookId(webhookId: string): WebhookDeliveryRow | undefined {
      return db.select().from(webhookDeliveries).where(eq(webhookDeliveries.webhookId, webhookId)).get();
    },

    /** The account's deliveries, newest first (webhook_deliveries_account_idx). */
    listForAccount(accountId: string, filter: DeliveryFilter): WebhookDeliveryRow[] {
      const byState = filter.state === undefined ? undefined : eq(webhookDeliveries.state, filter.state);
      return listWhere(and(eq(webhookDeliveries.accountId, accountId), byState), filter);
    },

    /** Every account's deliveries, newest first: the operator's view (CLI). */
    listAll(filter: DeliveryFilter): WebhookDeliveryRow[] {
      return listWhere(filter.state === undefined ? undefined : eq(webhookDeliveries.state, filter.state), filter);
    },

    /** The attempts of these deliveries, oldest first (webhook_attempts_delivery_idx). */
    attemptsOf(seqs: readonly number[]): WebhookAttemptRow[] {
      if (seqs.length === 0) return [];
      return db
        .select()
        .from(webhookAttempts)
        .where(inArray(webhookAttempts.deliverySeq, [...seqs]))
        .orderBy(asc(webhookAttempts.deliverySeq), asc(webhookAttempts.id))
        .all();
    },

    /**
     * Queues a finished delivery again, due now, with the same webhook-id and a fresh retry
     * schedule; its attempt log is kept. False when it is being delivered right now.
     */
    replay(seq: number, now: number): boolean {
      return replay.run({ seq, now }).changes === 1;
    },

    /**
     * The given-up deliveries that failed at or after `since` (of one account, or all), oldest
     * failure first: up to `limit` of those failed by `until` when given.
     */
    failedSince(since: number, window: FailedWindow = {}): WebhookDeliveryRow[] {
      return (
        db
          .select()
          .from(webhookDeliveries)
          .where(failedWhere(since, window))
          // The partial index's own order (completed_at, then rowid): pages without a sort.
          .orderBy(asc(webhookDeliveries.completedAt), asc(webhookDeliveries.seq))
          .limit(window.limit ?? -1) // SQLite reads a negative limit as none
          .all()
      );
    },

    /**
     * Deletes, with their attempts, the deliveries delivered or given up before `cutoff`, among the
     * `limit` oldest rows after `afterSeq`, in one transaction.
     */
    pruneFinished(cutoff: number, afterSeq: number, limit: number): PruneBatch {
      return pruneTransaction.immediate(cutoff, afterSeq, limit);
    },

    /** How many rows failedSince would answer without a limit. */
    countFailedSince(since: number, window: Omit<FailedWindow, 'limit'> = {}): number {
      return db.select({ total: count() }).from(webhookDeliveries).where(failedWhere(since, window)).get()?.total ?? 0;
    },
  };
}
