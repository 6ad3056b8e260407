/**
 * The PostgreSQL twin of ../../sqlite/queries/delivery-outcomes.ts, for several dispatchers on one
 * database: the next-in-line handover locks the rows it decides on, so a waiting callback is let go
 * exactly once and never forgotten. Call every method but `enqueue` and `replay` inside the
 * claim's transaction (store.transaction): the locks last until its commit.
 */

import { and, eq, sql } from 'drizzle-orm';
import { WAITS_FOR_EARLIER_CALLBACK } from '../../../domain/delivery-views.ts';
import type { CandidateDelivery, FinishedDelivery, OutboxEntry } from '../../sqlite/queries/delivery-rows.ts';
import type { PgDb } from '../db.ts';
import { webhookAttempts, webhookDeliveries } from '../schema.ts';
import { bySeq, candidateOf, RAW_CANDIDATE_COLUMNS, type RawCandidate, waitsBehindLastUnfinished } from './delivery-rows.ts';

/** The candidate's columns of the next row (`n`) in nextInLine's join. */
const NEXT_COLUMNS = RAW_CANDIDATE_COLUMNS.split(', ')
  .map((column) => `n.${column}`)
  .join(', ');

export function deliveryOutcomeQueries(db: PgDb) {
  /**
   * Marks the leased rows finished or due again, in one statement, each if this claim's lease still
   * holds it. Returns the seqs of the rows it finished (delivered or given up).
   */
  async function settle(finished: readonly FinishedDelivery[], now: number): Promise<Set<number>> {
    const outcomes = sql.join(
      finished.map(({ seq, leaseExpiresAt, attempt, outcome }) => {
        const state = outcome.kind === 'retry' ? 'pending' : outcome.kind === 'delivered' ? 'delivered' : 'failed';
        const lastError = outcome.kind === 'delivered' ? null : attempt.error;
        const nextAttemptAt = outcome.kind === 'retry' ? outcome.nextAttemptAt : null;
        return sql`(${seq}::bigint, ${leaseExpiresAt}::bigint, ${state}::text, ${attempt.statusCode}::bigint, ${lastError}::text, ${nextAttemptAt}::bigint)`;
      }),
      sql`, `,
    );
    const settled = await db.execute<{ seq: string; finished: boolean }>(sql`
      update ${webhookDeliveries} d set state = o.state, attempt_count = d.attempt_count + 1, last_status_code = o.status_code,
        last_error = o.last_error, lease_expires_at = null, updated_at = ${now}::bigint,
        next_attempt_at = coalesce(o.next_attempt_at, d.next_attempt_at),
        completed_at = case when o.state = 'pending' then d.completed_at else ${now}::bigint end
      from (values ${outcomes}) as o(seq, lease, state, status_code, last_error, next_attempt_at)
      where d.seq = o.seq and d.state = 'delivering' and d.lease_expires_at = o.lease
      returning d.seq, o.state <> 'pending' as finished`);
    return new Set(settled.filter((row) => row.finished).map((row) => Number(row.seq)));
  }

  /*
   * The callbacks finished rows let go, in one statement: for each, the next unfinished row of its
   * message and URL, if it is waiting and no earlier row is unfinished (a replayed earlier row goes
   * first). Both are locked, waiting if need be: an earlier row another dispatcher is finishing
   * counts once that commit shows it finished, and the next row is let go by one transaction only.
   */
  async function nextInLine(finished: readonly Pick<FinishedDelivery, 'seq' | 'messageHandle' | 'url'>[]): Promise<CandidateDelivery[]> {
    if (finished.length === 0) return [];
    const lines = sql.join(
      finished.map(({ seq, messageHandle, url }, place) => sql`(${place}::int, ${seq}::bigint, ${messageHandle}::text, ${url}::text)`),
      sql`, `,
    );
    const rows = await db.execute<RawCandidate>(sql`
      with finished(place, seq, message_handle, url) as (values ${lines}),
      earlier_unfinished as (
        select f.seq from finished f join ${webhookDeliveries} e
          on e.message_handle = f.message_handle and e.url = f.url and e.seq < f.seq
        where e.state in ('pending', 'delivering')
        for update of e)
      select ${sql.raw(NEXT_COLUMNS)} from finished f join ${webhookDeliveries} n
        on n.seq = (select min(x.seq) from ${webhookDeliveries} x
          where x.message_handle = f.message_handle and x.url = f.url and x.seq > f.seq and x.state in ('pending', 'delivering'))
      where n.state = 'pending' and n.next_attempt_at = ${WAITS_FOR_EARLIER_CALLBACK}
        and not exists (select 1 from earlier_unfinished u where u.seq = f.seq)
      order by f.place
      for update of n`);
    return rows.map(candidateOf);
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
        nextAttemptAt: sql`case when ${waitsBehindLastUnfinished(entry.messageHandle, entry.url)} then ${WAITS_FOR_EARLIER_CALLBACK}::bigint else ${now}::bigint end`,
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
      const settled = await settle(finished, now);
      // A retry lets nothing go; nor does a row whose lease lapsed: whoever holds it now lets the next one go.
      return nextInLine(finished.filter((delivery) => settled.has(delivery.seq)));
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
