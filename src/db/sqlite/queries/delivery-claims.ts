/**
 * The outbox as the dispatcher works it: reads candidate callbacks and applies the choices the
 * dispatcher made about them (domain/callback-claims.ts). Callers group these in one
 * writeTransaction, so a claim's reads and leases see no other writer in between. Raw SQL:
 * correlated inserts and planner hints the builder cannot say, on the dispatcher's hottest path.
 */

import type { AttemptOutcome, QueuePlace } from '../../../domain/callback-claims.ts';
import { WAITS_FOR_EARLIER_CALLBACK } from '../../../domain/delivery-views.ts';
import type { webhookAttempts, webhookDeliveries } from '../../schema.ts';
import type { Db } from '../connection.ts';

type DeliveryRow = typeof webhookDeliveries.$inferSelect;

/** A callback to send: the rest of the row (state, attempts, timestamps) starts the same for all. */
export type OutboxEntry = Pick<DeliveryRow, 'webhookId' | 'accountId' | 'messageHandle' | 'eventType' | 'url' | 'payload'> & {
  /** Signs this delivery instead of the account's secret (an account webhook entry's own, or its globalSecret). */
  signingSecret?: string | null | undefined;
};

/** A callback that may be claimed: the columns a post needs. */
export type CandidateDelivery = Pick<
  DeliveryRow,
  'seq' | 'webhookId' | 'accountId' | 'messageHandle' | 'eventType' | 'url' | 'payload' | 'attemptCount' | 'signingSecret'
>;

/** A due callback, with its place in the due order. */
export type DueDelivery = CandidateDelivery & QueuePlace;

/** A claimed row, with the account's signing secrets (read once per account per claim, not per row). */
export type ClaimedDelivery = CandidateDelivery & {
  /** The lease this claim holds: recording an attempt checks it, so a dispatcher whose lease lapsed cannot overwrite the next one's work. */
  leaseExpiresAt: number;
  webhookSecret: string | null;
  previousWebhookSecret: string | null;
  previousWebhookSecretExpiresAt: number | null;
};

export type AttemptRecord = Omit<typeof webhookAttempts.$inferSelect, 'id' | 'deliverySeq'>;

export type FinishedDelivery = {
  seq: number;
  /** Whose delivery it is: the account's live views hear of the attempt once it is recorded. */
  accountId: string;
  /** The message and URL whose next callback a delivered or given-up row lets go. */
  messageHandle: string;
  url: string;
  leaseExpiresAt: number;
  attempt: AttemptRecord;
  outcome: AttemptOutcome;
};

type RawSecrets = {
  webhook_secret: string | null;
  previous_webhook_secret: string | null;
  previous_webhook_secret_expires_at: number | null;
};

/** A candidate's columns, read as an array (better-sqlite3's `raw()`): its row objects, built a column at a time, cost twice as much. */
const CANDIDATE_COLUMNS = (alias: string) =>
  ['seq', 'webhook_id', 'account_id', 'message_handle', 'event_type', 'url', 'payload', 'attempt_count', 'signing_secret']
    .map((column) => `${alias}.${column}`)
    .join(', ');

type RawCandidate = [number, string, string, string, CandidateDelivery['eventType'], string, string, number, string | null];
/** A due candidate: its due time last. */
type RawDue = [...RawCandidate, number];

function candidateOf(row: RawCandidate | RawDue): CandidateDelivery {
  const [seq, webhookId, accountId, messageHandle, eventType, url, payload, attemptCount, signingSecret] = row;
  return { seq, webhookId, accountId, messageHandle, eventType, url, payload, attemptCount, signingSecret };
}

function dueOf(row: RawDue): DueDelivery {
  return { ...candidateOf(row), dueAt: row[9] };
}

export function deliveryClaimQueries(db: Db) {
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

  // Rows whose claimant died or stalled go back to the queue (webhook_deliveries_due_idx on state).
  const expireLeases = client.prepare(`
    update webhook_deliveries set state = 'pending', lease_expires_at = null, updated_at = @now
    where state = 'delivering' and lease_expires_at <= @now`);

  /*
   * Due rows, oldest due first, that are the first unfinished row of their (message, URL): the
   * NOT EXISTS keeps a message's callbacks in order (webhook_deliveries_order_idx: the unary +
   * stops the planner from reading every earlier rowid instead); the due index yields rows already
   * sorted by (next_attempt_at, seq). `+@limit`: a bare bound LIMIT is re-planned on every call
   * (see unplannedParam).
   */
  const dueRows = client
    .prepare(`
    select ${CANDIDATE_COLUMNS('d')}, d.next_attempt_at
    from webhook_deliveries d
    where d.state = 'pending' and d.next_attempt_at <= @now and (d.next_attempt_at, d.seq) > (@afterDueAt, @afterSeq)
      and not exists (select 1 from webhook_deliveries e
        where e.message_handle = d.message_handle and e.url = d.url and +e.seq < d.seq
          and e.state in ('pending', 'delivering'))
    order by d.next_attempt_at, d.seq
    limit +@limit`)
    .raw();
  const signingSecrets = client.prepare(`
    select webhook_secret, previous_webhook_secret, previous_webhook_secret_expires_at from accounts where id = ?`);

  const takeLease = client.prepare(`
    update webhook_deliveries set state = 'delivering', lease_expires_at = @lease, updated_at = @now where seq = @seq`);

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

  const releaseLease = client.prepare(`
    update webhook_deliveries set state = 'pending', lease_expires_at = null, updated_at = @now
    where seq = @seq and state = 'delivering' and lease_expires_at = @lease`);

  const releaseAll = client.transaction((leases: readonly { seq: number; leaseExpiresAt: number }[], now: number) => {
    for (const { seq, leaseExpiresAt } of leases) releaseLease.run({ seq, lease: leaseExpiresAt, now });
  });

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

    /** The started and leased rows as the dispatcher posts them, with their accounts' signing secrets. */
    claimed(rows: readonly CandidateDelivery[], lease: number): ClaimedDelivery[] {
      // Once per account per claim, not per row: a batch's rows mostly belong to few accounts.
      const secretsByAccount = new Map<string, RawSecrets | undefined>();
      return rows.map((row) => {
        if (!secretsByAccount.has(row.accountId))
          secretsByAccount.set(row.accountId, signingSecrets.get(row.accountId) as RawSecrets | undefined);
        // A delivery with its own secret is signed by that alone: it has no rotation.
        const secrets: RawSecrets | undefined =
          row.signingSecret === null
            ? secretsByAccount.get(row.accountId)
            : { webhook_secret: row.signingSecret, previous_webhook_secret: null, previous_webhook_secret_expires_at: null };
        return {
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
          webhookSecret: secrets?.webhook_secret ?? null,
          previousWebhookSecret: secrets?.previous_webhook_secret ?? null,
          previousWebhookSecretExpiresAt: secrets?.previous_webhook_secret_expires_at ?? null,
        };
      });
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

    /** Returns rows whose lease lapsed (their claimant died or stalled) to the queue. */
    expireLeases(now: number): void {
      expireLeases.run({ now });
    },

    /**
     * Due callbacks that may go now (none with an unfinished one ahead of it for the same message
     * and URL), in due order, after `start`, at most `limit`.
     */
    dueCallbacks(now: number, start: 'first' | QueuePlace, limit: number): DueDelivery[] {
      const after =
        start === 'first' ? { afterDueAt: Number.MIN_SAFE_INTEGER, afterSeq: 0 } : { afterDueAt: start.dueAt, afterSeq: start.seq };
      return (dueRows.all({ now, limit, ...after }) as RawDue[]).map(dueOf);
    },

    /** Leases the chosen due callbacks until `lease`. */
    lease(rows: readonly CandidateDelivery[], lease: number, now: number): void {
      for (const { seq } of rows) takeLease.run({ seq, lease, now });
    },

    /** Gives claimed rows back to the queue at once (shutdown), unless their lease already went to someone else. */
    release(leases: readonly { seq: number; leaseExpiresAt: number }[], now: number): void {
      if (leases.length > 0) releaseAll.immediate(leases, now);
    },
  };
}
