import { and, asc, count, desc, eq, gte, inArray, lt, lte, type SQL, sql } from 'drizzle-orm';
import type { DeliveryState } from '../../../domain/delivery-views.ts';
import type { DeliveryFilter, FailedWindow, WebhookAttemptRow, WebhookDeliveryRow } from '../../sqlite/queries/outbox.ts';
import type { PgDb } from '../db.ts';
import { webhookAttempts, webhookDeliveries } from '../schema.ts';
import { deliveryClaimQueries } from './delivery-claims.ts';
import { deliveryLogPruning } from './delivery-log-pruning.ts';
import { deliveryOutcomeQueries } from './delivery-outcomes.ts';

function failedWhere(since: number, { accountId, until }: FailedWindow): SQL | undefined {
  return and(
    // A literal, so the planner matches the partial index on failed rows.
    sql`${webhookDeliveries.state} = 'failed'`,
    gte(webhookDeliveries.completedAt, since),
    until === undefined ? undefined : lte(webhookDeliveries.completedAt, until),
    accountId === undefined ? undefined : eq(webhookDeliveries.accountId, accountId),
  );
}

/** The PostgreSQL twin of ../../sqlite/queries/outbox.ts: the delivery log as accounts and the operator read it. */
export function outboxQueries(db: PgDb) {
  function listWhere(where: SQL | undefined, filter: DeliveryFilter): Promise<WebhookDeliveryRow[]> {
    return db.select().from(webhookDeliveries).where(where).orderBy(desc(webhookDeliveries.seq)).limit(filter.limit).offset(filter.offset);
  }

  return {
    ...deliveryClaimQueries(db),
    // biome-ignore lint/nursery/noMisusedPromises: Biome takes this object of query methods for a promise.
    ...deliveryOutcomeQueries(db),
    // biome-ignore lint/nursery/noMisusedPromises: the same misreading as above.
    ...deliveryLogPruning(db),

    /** How many deliveries are in each state (reads every row): for tests and benchmarks. */
    async countByState(): Promise<Record<DeliveryState, number>> {
      const counts: Record<DeliveryState, number> = { pending: 0, delivering: 0, delivered: 0, failed: 0 };
      const rows = await db
        .select({ state: webhookDeliveries.state, total: count() })
        .from(webhookDeliveries)
        .groupBy(webhookDeliveries.state);
      for (const row of rows) counts[row.state] = row.total;
      return counts;
    },

    /** The webhook-id of the earliest unfinished delivery before `seq` of the same message and URL (webhook_deliveries_order_idx). */
    async blockerOf(row: Pick<WebhookDeliveryRow, 'seq' | 'messageHandle' | 'url'>): Promise<string | undefined> {
      const [blocker] = await db
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
        .limit(1);
      return blocker?.webhookId;
    },

    async findByWebhookId(webhookId: string): Promise<WebhookDeliveryRow | undefined> {
      const [row] = await db.select().from(webhookDeliveries).where(eq(webhookDeliveries.webhookId, webhookId));
      return row;
    },

    /** The account's deliveries, newest first (webhook_deliveries_account_idx). */
    listForAccount(accountId: string, filter: DeliveryFilter): Promise<WebhookDeliveryRow[]> {
      const byState = filter.state === undefined ? undefined : eq(webhookDeliveries.state, filter.state);
      return listWhere(and(eq(webhookDeliveries.accountId, accountId), byState), filter);
    },

    /** Every account's deliveries, newest first: the operator's view (CLI). */
    listAll(filter: DeliveryFilter): Promise<WebhookDeliveryRow[]> {
      return listWhere(filter.state === undefined ? undefined : eq(webhookDeliveries.state, filter.state), filter);
    },

    /** The attempts of these deliveries, oldest first (webhook_attempts_delivery_idx). */
    async attemptsOf(seqs: readonly number[]): Promise<WebhookAttemptRow[]> {
      if (seqs.length === 0) return [];
      return db
        .select()
        .from(webhookAttempts)
        .where(inArray(webhookAttempts.deliverySeq, [...seqs]))
        .orderBy(asc(webhookAttempts.deliverySeq), asc(webhookAttempts.id));
    },

    /**
     * The given-up deliveries that failed at or after `since` (of one account, or all), oldest
     * failure first: up to `limit` of those failed by `until` when given.
     */
    async failedSince(since: number, window: FailedWindow = {}): Promise<WebhookDeliveryRow[]> {
      const failed = db
        .select()
        .from(webhookDeliveries)
        .where(failedWhere(since, window))
        .orderBy(asc(webhookDeliveries.completedAt), asc(webhookDeliveries.seq))
        .$dynamic();
      return window.limit === undefined ? failed : failed.limit(window.limit);
    },

    /** How many rows failedSince would answer without a limit. */
    async countFailedSince(since: number, window: Omit<FailedWindow, 'limit'> = {}): Promise<number> {
      const [row] = await db.select({ total: count() }).from(webhookDeliveries).where(failedWhere(since, window));
      return row?.total ?? 0;
    },
  };
}
