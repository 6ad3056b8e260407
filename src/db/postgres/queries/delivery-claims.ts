/**
 * The PostgreSQL twin of ../../sqlite/queries/delivery-claims.ts, for several dispatchers on one
 * database: each claim locks what it reads (FOR UPDATE SKIP LOCKED), so two processes never lease
 * the same row, and the next-in-line handover locks the rows it decides on, so a waiting callback
 * is let go exactly once and never forgotten. Call every method but `enqueue` and `replay` inside
 * the claim's transaction (store.transaction): the locks last until its commit.
 */

import { type AnyColumn, and, asc, eq, inArray, lte, notExists, type SQL, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { QueuePlace } from '../../../domain/callback-claims.ts';
import { WAITS_FOR_EARLIER_CALLBACK } from '../../../domain/delivery-views.ts';
import type {
  CandidateDelivery,
  ClaimedDelivery,
  DueDelivery,
  FinishedDelivery,
  OutboxEntry,
} from '../../sqlite/queries/delivery-claims.ts';
import type { PgDb } from '../db.ts';
import { accounts, webhookAttempts, webhookDeliveries } from '../schema.ts';

type DeliveryTable = typeof webhookDeliveries;
/** The columns a queue condition reads, of the table or of an alias of it. */
type LineColumns = { messageHandle: AnyColumn; url: AnyColumn; state: AnyColumn };
type Secrets = Pick<ClaimedDelivery, 'webhookSecret' | 'previousWebhookSecret' | 'previousWebhookSecretExpiresAt'>;

const NO_SECRETS: Secrets = { webhookSecret: null, previousWebhookSecret: null, previousWebhookSecretExpiresAt: null };

const candidateColumns = (t: DeliveryTable) => ({
  seq: t.seq,
  webhookId: t.webhookId,
  accountId: t.accountId,
  messageHandle: t.messageHandle,
  eventType: t.eventType,
  url: t.url,
  payload: t.payload,
  attemptCount: t.attemptCount,
  signingSecret: t.signingSecret,
});

const unfinished = (t: LineColumns): SQL => inArray(t.state, ['pending', 'delivering']);

/** The rows of one message and URL: the queue's order is kept within these (webhook_deliveries_order_idx). */
const sameLine = (t: LineColumns, messageHandle: string, url: string): SQL => and(eq(t.messageHandle, messageHandle), eq(t.url, url))!;

/** The table again, under another name, for the conditions on a row's neighbours. */
const EARLIER = 'earlier';
const earlier = alias(webhookDeliveries, EARLIER);
/** `earlier` in a FROM clause of SQL written by hand (the builder names the table itself). */
const fromEarlier = sql`${webhookDeliveries} as ${sql.identifier(EARLIER)}`;

export function deliveryClaimQueries(db: PgDb) {
  /*
   * Whether the new row waits: the last unfinished row of its message and URL is locked until this
   * transaction commits, so whoever finishes that row waits for the commit and then sees the new
   * row to let go. A last row already locked by another transaction (being claimed or finished
   * right now) is not waited for, which could deadlock: the new row is then due at once, and the
   * claim's order check still holds it back until every earlier row finished.
   */
  const waitsBehindLastUnfinished = (entry: OutboxEntry): SQL => sql`exists (
    select 1 from ${webhookDeliveries}
    where ${webhookDeliveries.seq} = (select max(${earlier.seq}) from ${fromEarlier}
        where ${sameLine(earlier, entry.messageHandle, entry.url)} and ${unfinished(earlier)})
      and ${unfinished(webhookDeliveries)}
    for update skip locked)`;

  /** Marks a leased row finished or due again, if this claim's lease still holds it; true when it did. */
  async function settle(seq: number, lease: number, changes: Partial<typeof webhookDeliveries.$inferInsert>): Promise<boolean> {
    const result = await db
      .update(webhookDeliveries)
      .set({ attemptCount: sql`${webhookDeliveries.attemptCount} + 1`, leaseExpiresAt: null, ...changes })
      .where(and(eq(webhookDeliveries.seq, seq), eq(webhookDeliveries.state, 'delivering'), eq(webhookDeliveries.leaseExpiresAt, lease)));
    return result.count === 1;
  }

  /*
   * The callback a finished row lets go: the next unfinished row of its message and URL, if it is
   * waiting and no earlier row is unfinished (a replayed earlier row goes first). Both are locked,
   * waiting if need be: an earlier row another dispatcher is finishing counts once that commit
   * shows it finished, and the next row is let go by one transaction only.
   */
  async function nextInLine({ seq, messageHandle, url }: Pick<FinishedDelivery, 'seq' | 'messageHandle' | 'url'>) {
    const rows = await db.execute<RawCandidate>(sql`
      with earlier_unfinished as (
        select 1 from ${webhookDeliveries}
        where ${sameLine(webhookDeliveries, messageHandle, url)} and ${webhookDeliveries.seq} < ${seq} and ${unfinished(webhookDeliveries)}
        for update)
      select ${sql.raw(RAW_CANDIDATE_COLUMNS)} from ${webhookDeliveries}
      where seq = (select min(${earlier.seq}) from ${fromEarlier}
          where ${sameLine(earlier, messageHandle, url)} and ${earlier.seq} > ${seq} and ${unfinished(earlier)})
        and state = 'pending' and next_attempt_at = ${WAITS_FOR_EARLIER_CALLBACK}
        and not exists (select 1 from earlier_unfinished)
      for update of ${webhookDeliveries}`);
    return rows.map(candidateOf)[0];
  }

  async function signingSecretsOf(accountIds: readonly string[]): Promise<Map<string, Secrets>> {
    if (accountIds.length === 0) return new Map();
    const rows = await db
      .select({
        id: accounts.id,
        webhookSecret: accounts.webhookSecret,
        previousWebhookSecret: accounts.previousWebhookSecret,
        previousWebhookSecretExpiresAt: accounts.previousWebhookSecretExpiresAt,
      })
      .from(accounts)
      .where(inArray(accounts.id, [...accountIds]));
    return new Map(rows.map(({ id, ...secrets }) => [id, secrets]));
  }

  const bySeq = (rows: readonly Pick<CandidateDelivery, 'seq'>[]): SQL =>
    inArray(
      webhookDeliveries.seq,
      rows.map((row) => row.seq),
    );

  return {
    /** Call inside the transaction that records the event, so the change and its callback commit together. */
    async enqueue(entry: OutboxEntry, now: number): Promise<void> {
      await db.insert(webhookDeliveries).values({
        webhookId: entry.webhookId,
        accountId: entry.accountId,
        messageHandle: entry.messageHandle,
        eventType: entry.eventType,
        url: entry.url,
        payload: entry.payload,
        signingSecret: entry.signingSecret ?? null,
        state: 'pending',
        nextAttemptAt: sql`case when ${waitsBehindLastUnfinished(entry)} then ${WAITS_FOR_EARLIER_CALLBACK}::bigint else ${now}::bigint end`,
        createdAt: now,
        updatedAt: now,
      });
    },

    /**
     * Queues a finished delivery again, due now, with the same webhook-id and a fresh retry
     * schedule; its attempt log is kept. False when it is being delivered right now.
     */
    async replay(seq: number, now: number): Promise<boolean> {
      const result = await db
        .update(webhookDeliveries)
        .set({ state: 'pending', attemptCount: 0, nextAttemptAt: now, leaseExpiresAt: null, completedAt: null, updatedAt: now })
        .where(and(eq(webhookDeliveries.seq, seq), sql`${webhookDeliveries.state} <> 'delivering'`));
      return result.count === 1;
    },

    /** The started and leased rows as the dispatcher posts them, with their accounts' signing secrets. */
    async claimed(rows: readonly CandidateDelivery[], lease: number): Promise<ClaimedDelivery[]> {
      // Once per account per claim, not per row: a batch's rows mostly belong to few accounts.
      const secrets = await signingSecretsOf([...new Set(rows.filter((row) => row.signingSecret === null).map((row) => row.accountId))]);
      return rows.map((row) => ({
        seq: row.seq,
        webhookId: row.webhookId,
        accountId: row.accountId,
        messageHandle: row.messageHandle,
        eventType: row.eventType,
        url: row.url,
        payload: row.payload,
        attemptCount: row.attemptCount,
        signingSecret: row.signingSecret,
        leaseExpiresAt: lease,
        // A delivery with its own secret is signed by that alone: it has no rotation.
        ...(row.signingSecret === null ? (secrets.get(row.accountId) ?? NO_SECRETS) : { ...NO_SECRETS, webhookSecret: row.signingSecret }),
      }));
    },

    /**
     * Records the attempts and their outcomes. Returns the next callbacks that the delivered or
     * given-up rows let go, still waiting and locked by this transaction: the caller starts each or makes it due.
     */
    async recordAttempts(finished: readonly FinishedDelivery[], now: number): Promise<CandidateDelivery[]> {
      if (finished.length === 0) return [];
      await db.insert(webhookAttempts).values(finished.map(({ seq, attempt }) => ({ deliverySeq: seq, ...attempt })));
      const next: CandidateDelivery[] = [];
      for (const delivery of finished) {
        const { seq, leaseExpiresAt: lease, attempt, outcome } = delivery;
        const reported = { lastStatusCode: attempt.statusCode, updatedAt: now };
        if (outcome.kind === 'retry') {
          await settle(seq, lease, { ...reported, state: 'pending', lastError: attempt.error, nextAttemptAt: outcome.nextAttemptAt });
          continue;
        }
        const state = outcome.kind === 'delivered' ? 'delivered' : 'failed';
        const lastError = outcome.kind === 'delivered' ? null : attempt.error;
        // The lease lapsed: whoever holds the row now lets the next one go.
        if (!(await settle(seq, lease, { ...reported, state, lastError, completedAt: now }))) continue;
        const row = await nextInLine(delivery);
        if (row) next.push(row);
      }
      return next;
    },

    /** Next callbacks that wait no longer: due now, they take their turn with the others. */
    async makeDue(rows: readonly CandidateDelivery[], now: number): Promise<void> {
      if (rows.length === 0) return;
      await db.update(webhookDeliveries).set({ nextAttemptAt: now }).where(bySeq(rows));
    },

    /** Next callbacks started at once, leased until `lease`. */
    async startNext(rows: readonly CandidateDelivery[], lease: number, now: number): Promise<void> {
      if (rows.length === 0) return;
      // Started in the slot the one before it left, due now so that a lapsed lease returns it to the queue as due.
      await db
        .update(webhookDeliveries)
        .set({ state: 'delivering', nextAttemptAt: now, leaseExpiresAt: lease, updatedAt: now })
        .where(bySeq(rows));
    },

    /** Returns rows whose lease lapsed (their claimant died or stalled) to the queue. */
    async expireLeases(now: number): Promise<void> {
      // Rows another dispatcher is expiring or settling right now are left to it (webhook_deliveries_due_idx).
      const lapsed = db
        .select({ seq: webhookDeliveries.seq })
        .from(webhookDeliveries)
        .where(and(eq(webhookDeliveries.state, 'delivering'), lte(webhookDeliveries.leaseExpiresAt, now)))
        .for('update', { skipLocked: true });
      await db
        .update(webhookDeliveries)
        .set({ state: 'pending', leaseExpiresAt: null, updatedAt: now })
        .where(inArray(webhookDeliveries.seq, lapsed));
    },

    /**
     * Due callbacks that may go now (none with an unfinished one ahead of it for the same message
     * and URL), in due order, after `start`, at most `limit`; locked until the transaction ends, and
     * without the rows another transaction holds (another dispatcher is claiming them).
     */
    async dueCallbacks(now: number, start: 'first' | QueuePlace, limit: number): Promise<DueDelivery[]> {
      const d = webhookDeliveries;
      const after = start === 'first' ? { dueAt: Number.MIN_SAFE_INTEGER, seq: 0 } : start;
      return db
        .select({ ...candidateColumns(d), dueAt: d.nextAttemptAt })
        .from(d)
        .where(
          and(
            eq(d.state, 'pending'),
            lte(d.nextAttemptAt, now),
            sql`(${d.nextAttemptAt}, ${d.seq}) > (${after.dueAt}::bigint, ${after.seq}::bigint)`,
            notExists(
              db
                .select({ one: sql`1` })
                .from(earlier)
                .where(
                  and(
                    eq(earlier.messageHandle, d.messageHandle),
                    eq(earlier.url, d.url),
                    sql`${earlier.seq} < ${d.seq}`,
                    unfinished(earlier),
                  ),
                ),
            ),
          ),
        )
        .orderBy(asc(d.nextAttemptAt), asc(d.seq))
        .limit(limit)
        .for('update', { of: d, skipLocked: true });
    },

    /** Leases the chosen due callbacks until `lease`. */
    async lease(rows: readonly CandidateDelivery[], lease: number, now: number): Promise<void> {
      if (rows.length === 0) return;
      await db.update(webhookDeliveries).set({ state: 'delivering', leaseExpiresAt: lease, updatedAt: now }).where(bySeq(rows));
    },

    /** Gives claimed rows back to the queue at once (shutdown), unless their lease already went to someone else. */
    async release(leases: readonly { seq: number; leaseExpiresAt: number }[], now: number): Promise<void> {
      if (leases.length === 0) return;
      const given = sql.join(
        leases.map(({ seq, leaseExpiresAt }) => sql`(${seq}::bigint, ${leaseExpiresAt}::bigint)`),
        sql`, `,
      );
      await db.execute(sql`
        update ${webhookDeliveries} set state = 'pending', lease_expires_at = null, updated_at = ${now}
        from (values ${given}) as given(seq, lease)
        where ${webhookDeliveries.seq} = given.seq and ${webhookDeliveries.state} = 'delivering'
          and ${webhookDeliveries.leaseExpiresAt} = given.lease`);
    },
  };
}

/** A candidate as raw SQL answers it: postgres.js gives bigint columns as strings. */
type RawCandidate = {
  seq: string;
  webhook_id: string;
  account_id: string;
  message_handle: string;
  event_type: CandidateDelivery['eventType'];
  url: string;
  payload: string;
  attempt_count: string;
  signing_secret: string | null;
};

const RAW_CANDIDATE_COLUMNS = 'seq, webhook_id, account_id, message_handle, event_type, url, payload, attempt_count, signing_secret';

function candidateOf(row: RawCandidate): CandidateDelivery {
  return {
    seq: Number(row.seq),
    webhookId: row.webhook_id,
    accountId: row.account_id,
    messageHandle: row.message_handle,
    eventType: row.event_type,
    url: row.url,
    payload: row.payload,
    attemptCount: Number(row.attempt_count),
    signingSecret: row.signing_secret,
  };
}
