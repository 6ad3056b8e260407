/**
 * The outbox's writes outside a claim's read: queuing a callback, queuing it again, and recording
 * what attempts did, with the next callback of a message and URL each finished one lets go. Raw
 * SQL: correlated inserts the builder cannot say, on the dispatcher's hottest writes, where
 * drizzle's placeholder mapping showed up in profiles.
 */

import { WAITS_FOR_EARLIER_CALLBACK } from '../../../domain/delivery-views.ts';
import type { Db } from '../connection.ts';
import {
  CANDIDATE_COLUMNS,
  type CandidateDelivery,
  candidateOf,
  type FinishedDelivery,
  type OutboxEntry,
  type RawCandidate,
} from './delivery-rows.ts';

export function deliveryOutcomeQueries(db: Db) {
  const client = db.$client;

  /*
   * A row with an unfinished row ahead of it for the same message and URL waits (no due time)
   * until that one finishes: claims then read only rows that may go now, instead of reading and
   * passing over a message's later callbacks on every claim. The unary + keeps the planner on
   * webhook_deliveries_order_idx: left to itself it takes the due index for `state =`.
   */
  const enqueue = client.prepare(`
    insert into webhook_deliveries
      (webhook_id, account_id, message_handle, event_type, url, payload, signing_secret, state, next_attempt_at, created_at, updated_at)
    values (@webhookId, @accountId, @messageHandle, @eventType, @url, @payload, @signingSecret, 'pending',
      case when exists (select 1 from webhook_deliveries
        where message_handle = @messageHandle and url = @url and +state in ('pending', 'delivering'))
      then ${WAITS_FOR_EARLIER_CALLBACK} else @now end,
      @now, @now)`);

  const replay = client.prepare(`
    update webhook_deliveries set state = 'pending', attempt_count = 0, next_attempt_at = @now, lease_expires_at = null,
      completed_at = null, updated_at = @now
    where seq = @seq and state != 'delivering'`);

  // Raw like its neighbours: drizzle filling the placeholders cost a tenth of a batch's recording.
  const insertAttempt = client.prepare(`
    insert into webhook_attempts (delivery_seq, attempted_at, duration_ms, status_code, response_excerpt, error)
    values (@deliverySeq, @attemptedAt, @durationMs, @statusCode, @responseExcerpt, @error)`);

  // Each outcome is guarded by the lease it claimed with: a row re-claimed after a lapse is not ours any more.
  const LEASED = `where seq = @seq and state = 'delivering' and lease_expires_at = @lease`;
  const markDelivered = client.prepare(`
    update webhook_deliveries set state = 'delivered', attempt_count = attempt_count + 1, last_status_code = @statusCode,
      last_error = null, lease_expires_at = null, completed_at = @now, updated_at = @now ${LEASED}`);
  const markFailed = client.prepare(`
    update webhook_deliveries set state = 'failed', attempt_count = attempt_count + 1, last_status_code = @statusCode,
      last_error = @error, lease_expires_at = null, completed_at = @now, updated_at = @now ${LEASED}`);
  const markRetry = client.prepare(`
    update webhook_deliveries set state = 'pending', attempt_count = attempt_count + 1, last_status_code = @statusCode,
      last_error = @error, lease_expires_at = null, next_attempt_at = @nextAttemptAt, updated_at = @now ${LEASED}`);
  /*
   * The callback a finished one (delivered or given up) lets go: the next unfinished row of its
   * message and URL, if it is waiting and nothing earlier is unfinished (a replayed earlier row goes first).
   */
  const nextInLine = client
    .prepare(`
    select ${CANDIDATE_COLUMNS('f')}
    from webhook_deliveries f
    where f.seq = (select seq from webhook_deliveries
        where message_handle = @messageHandle and url = @url and seq > @seq and +state in ('pending', 'delivering')
        order by seq limit 1)
      and f.state = 'pending' and f.next_attempt_at = ${WAITS_FOR_EARLIER_CALLBACK}
      and not exists (select 1 from webhook_deliveries e
        where e.message_handle = @messageHandle and e.url = @url and e.seq < @seq and +e.state in ('pending', 'delivering'))`)
    .raw();
  const makeDue = client.prepare(`update webhook_deliveries set next_attempt_at = @now where seq = @seq`);
  // Started in the slot the one before it left, due now so that a lapsed lease returns it to the queue as due.
  const startNext = client.prepare(`
    update webhook_deliveries set state = 'delivering', next_attempt_at = @now, lease_expires_at = @lease, updated_at = @now
    where seq = @seq`);

  return {
    /** Call inside the transaction that records the event, so the change and its callback commit together. */
    enqueue(entry: OutboxEntry, now: number): void {
      enqueue.run({ ...entry, signingSecret: entry.signingSecret ?? null, now });
    },

    /**
     * Queues a finished delivery again, due now, with the same webhook-id and a fresh retry
     * schedule; its attempt log is kept. False when it is being delivered right now.
     */
    replay(seq: number, now: number): boolean {
      return replay.run({ seq, now }).changes === 1;
    },

    /**
     * Records the attempts and their outcomes. Returns the next callbacks that the delivered or
     * given-up rows let go, still waiting: the caller starts each or makes it due.
     */
    recordAttempts(finished: readonly FinishedDelivery[], now: number): CandidateDelivery[] {
      const next: CandidateDelivery[] = [];
      for (const { seq, messageHandle, url, leaseExpiresAt: lease, attempt, outcome } of finished) {
        insertAttempt.run({ deliverySeq: seq, ...attempt });
        const leased = { seq, lease, now, statusCode: attempt.statusCode, error: attempt.error };
        if (outcome.kind === 'retry') {
          markRetry.run({ ...leased, nextAttemptAt: outcome.nextAttemptAt });
          continue;
        }
        const { changes } = (outcome.kind === 'delivered' ? markDelivered : markFailed).run(leased);
        if (changes === 0) continue; // the lease lapsed: whoever holds the row now lets the next one go
        const row = nextInLine.get({ seq, messageHandle, url }) as RawCandidate | undefined;
        if (row) next.push(candidateOf(row));
      }
      return next;
    },

    /** Next callbacks that wait no longer: due now, they take their turn with the others. */
    makeDue(rows: readonly CandidateDelivery[], now: number): void {
      for (const { seq } of rows) makeDue.run({ seq, now });
    },

    /** Next callbacks started at once, leased until `lease`. */
    startNext(rows: readonly CandidateDelivery[], lease: number, now: number): void {
      for (const { seq } of rows) startNext.run({ seq, now, lease });
    },
  };
}
