import { and, asc, count, desc, eq, gte, inArray, lt, lte, type SQL, sql } from 'drizzle-orm';
import type { DeliveryState } from '../../../domain/delivery-views.ts';
import { webhookAttempts, webhookDeliveries } from '../../schema.ts';
import type { Db } from '../connection.ts';
import { deliveryClaimQueries } from './delivery-claims.ts';
import { deliveryLogPruning } from './delivery-log-pruning.ts';
import { deliveryOutcomeQueries } from './delivery-outcomes.ts';

export type WebhookDeliveryRow = typeof webhookDeliveries.$inferSelect;
export type WebhookAttemptRow = typeof webhookAttempts.$inferSelect;

export type DeliveryFilter = { state?: DeliveryState | undefined; limit: number; offset: number };

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

/** The delivery log as accounts and the operator read it, with drizzle's builder; the queue's statements are in delivery-claims.ts and delivery-outcomes.ts. */
export function outboxQueries(db: Db) {
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
    ...deliveryOutcomeQueries(db),
    ...deliveryLogPruning(db),

    /** How many deliveries are in each state (reads every row): for tests and benchmarks. */
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

    /** The webhook-id of the earliest unfinished delivery before `seq` of the same message and URL (webhook_deliveries_order_idx). */
    blockerOf(row: Pick<WebhookDeliveryRow, 'seq' | 'messageHandle' | 'url'>): string | undefined {
      return db
        .select({ webhookId: webhookDeliveries.webhookId })
        .from(webhookDeliveries)
        .where(
          and(
            eq(webhookDeliveries.messageHandle, row.messageHandle),
            eq(webhookDeliveries.url, row.url),
            lt(webhookDeliveries.seq, row.seq),
            inArray(webhookDeliveries.state, ['pending', 'delivering']),
          ),
        )
        .orderBy(asc(webhookDeliveries.seq))
        .limit(1)
        .get()?.webhookId;
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

    /** How many rows failedSince would answer without a limit. */
    countFailedSince(since: number, window: Omit<FailedWindow, 'limit'> = {}): number {
      return db.select({ total: count() }).from(webhookDeliveries).where(failedWhere(since, window)).get()?.total ?? 0;
    },
  };
}
