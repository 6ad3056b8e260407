/**
 * The PostgreSQL twin of ../../sqlite/queries/delivery-outcomes.ts, for several dispatchers on one
 * database: the next-in-line handover locks the rows it decides on, so a waiting callback is let go
 * exactly once and never forgotten. Call every method but `enqueue` and `replay` inside the
 * claim's transaction (store.transaction): the locks last until its commit.
 */

import { and, eq, type SQL, sql } from 'drizzle-orm';
import { WAITS_FOR_EARLIER_CALLBACK } from '../../../domain/delivery-views.ts';
import type { CandidateDelivery, FinishedDelivery, OutboxEntry } from '../../sqlite/queries/delivery-rows.ts';
import type { PgDb } from '../db.ts';
import { webhookAttempts, webhookDeliveries } from '../schema.ts';
import {
  bySeq,
  candidateOf,
  earlier,
  fromEarlier,
  RAW_CANDIDATE_COLUMNS,
  type RawCandidate,
  sameLine,
  unfinished,
} from './delivery-rows.ts';

export function deliveryOutcomeQueries(db: PgDb) {
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
  };
}
