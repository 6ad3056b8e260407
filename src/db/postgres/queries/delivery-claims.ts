/**
 * The PostgreSQL twin of ../../sqlite/queries/delivery-claims.ts, for several dispatchers on one
 * database: each claim locks what it reads (FOR UPDATE SKIP LOCKED), so two processes never lease
 * the same row. Call every method inside the claim's transaction (store.transaction): the locks
 * last until its commit.
 */

import { and, asc, eq, inArray, lte, notExists, notInArray, sql } from 'drizzle-orm';
import type { LeftOut } from '../../../domain/callback-claims.ts';
import type { QueuePlace } from '../../../domain/claim-reads.ts';
import {
  type CandidateDelivery,
  type ClaimedDelivery,
  type DueDelivery,
  leftOutKeys,
  NOTHING_LEFT_OUT,
} from '../../sqlite/queries/delivery-rows.ts';
import type { PgDb } from '../db.ts';
import { accounts, webhookDeliveries } from '../schema.ts';
import { bySeq, candidateColumns, earlier, unfinished } from './delivery-rows.ts';

type Secrets = Pick<ClaimedDelivery, 'webhookSecret' | 'previousWebhookSecret' | 'previousWebhookSecretExpiresAt'>;

/* Literal states, as the partial queue indexes name them: a prepared statement's generic plan cannot use them for a bound one. */
const PENDING = sql`${webhookDeliveries.state} = 'pending'`;
const IN_FLIGHT = sql`${webhookDeliveries.state} = 'delivering'`;

const NO_SECRETS: Secrets = { webhookSecret: null, previousWebhookSecret: null, previousWebhookSecretExpiresAt: null };

export function deliveryClaimQueries(db: PgDb) {
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

  return {
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

    /** Returns rows whose lease lapsed (their claimant died or stalled) to the queue. */
    async expireLeases(now: number): Promise<void> {
      // Rows another dispatcher is expiring or settling right now are left to it (webhook_deliveries_lease_idx).
      const lapsed = db
        .select({ seq: webhookDeliveries.seq })
        .from(webhookDeliveries)
        .where(and(IN_FLIGHT, lte(webhookDeliveries.leaseExpiresAt, now)))
        .for('update', { skipLocked: true });
      await db
        .update(webhookDeliveries)
        .set({ state: 'pending', leaseExpiresAt: null, updatedAt: now })
        .where(inArray(webhookDeliveries.seq, lapsed));
    },

    /**
     * Due callbacks that may go now (none with an unfinished one ahead of it for the same message
     * and URL), without those `leftOut` names, in due order, after `start`, at most `limit`;
     * locked until the transaction ends, and without the rows another transaction holds (another
     * dispatcher is claiming them).
     */
    async dueCallbacks(
      now: number,
      start: 'first' | QueuePlace,
      limit: number,
      leftOut: LeftOut = NOTHING_LEFT_OUT,
    ): Promise<DueDelivery[]> {
      const d = webhookDeliveries;
      const after = start === 'first' ? { dueAt: Number.MIN_SAFE_INTEGER, seq: 0 } : start;
      const shares = leftOutKeys(leftOut);
      return db
        .select({ ...candidateColumns(d), dueAt: d.nextAttemptAt })
        .from(d)
        .where(
          and(
            PENDING,
            lte(d.nextAttemptAt, now),
            sql`(${d.nextAttemptAt}, ${d.seq}) > (${after.dueAt}::bigint, ${after.seq}::bigint)`,
            leftOut.accounts.length === 0 ? undefined : notInArray(d.accountId, leftOut.accounts),
            // '<account id> <URL up to its path>', as leftOutKeys builds them: urlBeforePath in SQL.
            shares.length === 0
              ? undefined
              : notInArray(
                  sql`${d.accountId} || ' ' || substr(${d.url}, 1, strpos(${d.url}, '//') + strpos(substr(${d.url}, strpos(${d.url}, '//') + 2) || '/', '/'))`,
                  shares,
                ),
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
