import { and, asc, count, desc, eq, gte, inArray, lte, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../connection.ts';
import type { PruneBatch } from '../oldest-rows.ts';
import { HELD_BEHIND_PREDECESSOR, type DeliveryState } from '../../domain/delivery-views.ts';
import { webhookAttempts, webhookDeliveries } from '../schema.ts';

export type WebhookDeliveryRow = typeof webhookDeliveries.$inferSelect;
export type WebhookAttemptRow = typeof webhookAttempts.$inferSelect;

/** A callback to send: the rest of the row (state, attempts, timestamps) starts the same for all. */
export type OutboxEntry = Pick<WebhookDeliveryRow, 'webhookId' | 'accountId' | 'messageHandle' | 'eventType' | 'url' | 'payload'>;

/** A claimed row, with the account's signing secrets read in the same statement (one query per claim, not per row). */
export type ClaimedDelivery = Pick<
  WebhookDeliveryRow,
  'seq' | 'webhookId' | 'accountId' | 'messageHandle' | 'eventType' | 'url' | 'payload' | 'attemptCount'
> & {
  /** The lease this claim holds: finishing a row checks it, so a dispatcher whose lease lapsed cannot overwrite the next one's work. */
  leaseExpiresAt: number;
  webhookSecret: string | null;
  previousWebhookSecret: string | null;
  previousWebhookSecretExpiresAt: number | null;
};

/** A due row's place in the due order: by due time, then by seq. */
export type DuePosition = { dueAt: number; seq: number };

/**
 * Decides, row by row, which rows a claim takes: by destination URL (per-host limits). Due rows
 * come with their place in the due order; the followers of finished rows without one.
 */
export type ClaimFilter = (url: string, position?: DuePosition) => 'take' | 'skip' | 'stop';

/** Where a claim's scan of due rows starts: at the first, after a row an earlier scan looked at, or nowhere. */
export type DueScanStart = 'first' | DuePosition | 'none';

/**
 * What a claim takes: leases of `leaseMs`, at most `limit` due rows looked at, each passed through
 * `accept`. `scanFrom`, asked once the finished rows' followers are taken, says where the scan starts
 * (from the first due row when not given).
 */
export type Claim = { leaseMs: number; limit: number; accept: ClaimFilter; scanFrom?: () => DueScanStart };

export type AttemptRecord = Omit<WebhookAttemptRow, 'id' | 'deliverySeq'>;

/** What became of one claimed row after its attempt. */
export type DeliveryOutcome =
  | { kind: 'delivered' }
  | { kind: 'retry'; nextAttemptAt: number }
  | { kind: 'failed' };

export type FinishedDelivery = {
  seq: number;
  /** Whose delivery it is: the account's live views hear of the attempt once it is recorded. */
  accountId: string;
  /** The message and URL whose next callback a delivered or given-up row lets go. */
  messageHandle: string;
  url: string;
  leaseExpiresAt: number;
  attempt: AttemptRecord;
  outcome: DeliveryOutcome;
};

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

type RawClaimed = {
  seq: number;
  webhook_id: string;
  account_id: string;
  message_handle: string;
  event_type: WebhookDeliveryRow['eventType'];
  url: string;
  payload: string;
  attempt_count: number;
};

/** A due row, with its due time: where a later scan may resume. */
type RawDue = RawClaimed & { next_attempt_at: number };

type RawSecrets = {
  webhook_secret: string | null;
  previous_webhook_secret: string | null;
  previous_webhook_secret_expires_at: number | null;
};

export function outboxQueries(db: Db) {
  const client = db.$client;

  /*
   * A row with an unfinished row ahead of it for the same message and URL is held (no due time)
   * until that one finishes: claims then read only rows that may go now, instead of walking and
   * skipping a message's later callbacks on every scan. The unary + keeps the planner on
   * webhook_deliveries_order_idx: left to itself it takes the due index for `state =`.
   */
  const enqueue = client.prepare(`
    insert into webhook_deliveries
      (webhook_id, account_id, message_handle, event_type, url, payload, state, next_attempt_at, created_at, updated_at)
    values (@webhookId, @accountId, @messageHandle, @eventType, @url, @payload, 'pending',
      case when exists (select 1 from webhook_deliveries
        where message_handle = @messageHandle and url = @url and +state in ('pending', 'delivering'))
      then ${HELD_BEHIND_PREDECESSOR} else @now end,
      @now, @now)`);

  // Rows whose claimant died or stalled go back to the queue (webhook_deliveries_due_idx on state).
  const expireLeases = client.prepare(`
    update webhook_deliveries set state = 'pending', lease_expires_at = null, updated_at = @now
    where state = 'delivering' and lease_expires_at <= @now`);

  /*
   * Due rows, oldest due first, that are the first unfinished row of their (message, URL): the
   * NOT EXISTS keeps a message's callbacks in order (webhook_deliveries_order_idx: the unary +
   * stops the planner from walking every earlier rowid instead); the due index yields rows already
   * sorted by (next_attempt_at, seq). `+@limit`: a bare bound LIMIT is re-planned on every call
   * (see unplannedParam).
   */
  const dueRows = client.prepare(`
    select d.seq, d.webhook_id, d.account_id, d.message_handle, d.event_type, d.url, d.payload, d.attempt_count, d.next_attempt_at
    from webhook_deliveries d
    where d.state = 'pending' and d.next_attempt_at <= @now and (d.next_attempt_at, d.seq) > (@afterDueAt, @afterSeq)
      and not exists (select 1 from webhook_deliveries e
        where e.message_handle = d.message_handle and e.url = d.url and +e.seq < d.seq
          and e.state in ('pending', 'delivering'))
    order by d.next_attempt_at, d.seq
    limit +@limit`);
  const signingSecrets = client.prepare(`
    select webhook_secret, previous_webhook_secret, previous_webhook_secret_expires_at from accounts where id = ?`);

  const takeLease = client.prepare(`
    update webhook_deliveries set state = 'delivering', lease_expires_at = @lease, updated_at = @now where seq = @seq`);

  // Raw like its neighbours: drizzle filling the placeholders cost a tenth of a batch's finish.
  const insertAttempt = client.prepare(`
    insert into webhook_attempts (delivery_seq, attempted_at, duration_ms, status_code, response_excerpt, error)
    values (@deliverySeq, @attemptedAt, @durationMs, @statusCode, @responseExcerpt, @error)`);

  // Each finish is guarded by the lease it claimed with: a row re-claimed after a lapse is not ours any more.
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
   * The row a finished one (delivered or given up) lets go: the next unfinished row of its message
   * and URL, if it is held and nothing earlier is unfinished (a replayed earlier row goes first).
   */
  const nextInLine = client.prepare(`
    select f.seq, f.webhook_id, f.account_id, f.message_handle, f.event_type, f.url, f.payload, f.attempt_count
    from webhook_deliveries f
    where f.seq = (select seq from webhook_deliveries
        where message_handle = @messageHandle and url = @url and seq > @seq and +state in ('pending', 'delivering')
        order by seq limit 1)
      and f.state = 'pending' and f.next_attempt_at = ${HELD_BEHIND_PREDECESSOR}
      and not exists (select 1 from webhook_deliveries e
        where e.message_handle = @messageHandle and e.url = @url and e.seq < @seq and +e.state in ('pending', 'delivering'))`);
  const releaseHeld = client.prepare(`update webhook_deliveries set next_attempt_at = @now where seq = @seq`);
  // Taken straight from its predecessor's slot, due now so that a lapsed lease returns it to the queue as due.
  const handOver = client.prepare(`
    update webhook_deliveries set state = 'delivering', next_attempt_at = @now, lease_expires_at = @lease, updated_at = @now
    where seq = @seq`);

  const releaseLease = client.prepare(`
    update webhook_deliveries set state = 'pending', lease_expires_at = null, updated_at = @now
    where seq = @seq and state = 'delivering' and lease_expires_at = @lease`);

  const replay = client.prepare(`
    update webhook_deliveries set state = 'pending', attempt_count = 0, next_attempt_at = @now, lease_expires_at = null,
      completed_at = null, updated_at = @now
    where seq = @seq and state != 'delivering'`);

  // The log from its oldest row (rowid order), so forgetting old deliveries never needs an index of its own.
  const oldestEntries = client.prepare(`
    select seq, state, created_at, completed_at from webhook_deliveries where seq > @afterSeq order by seq limit +@limit`);
  const deleteAttempts = client.prepare(`delete from webhook_attempts where delivery_seq = ?`);
  const deleteDelivery = client.prepare(`delete from webhook_deliveries where seq = ?`);

  function claimedFrom(raw: RawClaimed, lease: number): ClaimedDelivery {
    return {
      seq: raw.seq,
      webhookId: raw.webhook_id,
      accountId: raw.account_id,
      messageHandle: raw.message_handle,
      eventType: raw.event_type,
      url: raw.url,
      payload: raw.payload,
      attemptCount: raw.attempt_count,
      leaseExpiresAt: lease,
      webhookSecret: null,
      previousWebhookSecret: null,
      previousWebhookSecretExpiresAt: null,
    };
  }

  // Once per account per transaction, not per row: a batch's rows mostly belong to few accounts.
  function addSigningSecrets(rows: readonly ClaimedDelivery[]): void {
    const secretsByAccount = new Map<string, RawSecrets | undefined>();
    for (const row of rows) {
      if (!secretsByAccount.has(row.accountId)) secretsByAccount.set(row.accountId, signingSecrets.get(row.accountId) as RawSecrets | undefined);
      const secrets = secretsByAccount.get(row.accountId);
      row.webhookSecret = secrets?.webhook_secret ?? null;
      row.previousWebhookSecret = secrets?.previous_webhook_secret ?? null;
      row.previousWebhookSecretExpiresAt = secrets?.previous_webhook_secret_expires_at ?? null;
    }
  }

  /**
   * Records the attempts; each delivered or given-up row lets its held follower go: leased at once
   * when `claim` is given and its filter takes it (the follower goes to the same URL, so it takes
   * the slot its predecessor just left), made due otherwise. Returns the followers leased.
   */
  function finishRows(finished: readonly FinishedDelivery[], now: number, claim: Claim | undefined): ClaimedDelivery[] {
    const handedOver: ClaimedDelivery[] = [];
    let taking = claim !== undefined;
    for (const { seq, messageHandle, url, leaseExpiresAt: lease, attempt, outcome } of finished) {
      insertAttempt.run({ deliverySeq: seq, ...attempt });
      const leased = { seq, lease, now, statusCode: attempt.statusCode, error: attempt.error };
      if (outcome.kind === 'retry') {
        markRetry.run({ ...leased, nextAttemptAt: outcome.nextAttemptAt });
        continue;
      }
      const { changes } = (outcome.kind === 'delivered' ? markDelivered : markFailed).run(leased);
      if (changes === 0) continue; // the lease lapsed: whoever holds the row now lets its follower go
      const follower = nextInLine.get({ seq, messageHandle, url }) as RawClaimed | undefined;
      if (!follower) continue;
      const verdict = taking ? claim!.accept(follower.url) : 'stop';
      if (verdict === 'stop') taking = false;
      if (verdict === 'take') {
        const followerLease = now + claim!.leaseMs;
        handOver.run({ seq: follower.seq, now, lease: followerLease });
        handedOver.push(claimedFrom(follower, followerLease));
      } else {
        releaseHeld.run({ seq: follower.seq, now });
      }
    }
    return handedOver;
  }

  function claimRows(now: number, { leaseMs, limit, accept }: Claim, start: 'first' | DuePosition): ClaimedDelivery[] {
    expireLeases.run({ now });
    const lease = now + leaseMs;
    const claimed: ClaimedDelivery[] = [];
    const after = start === 'first' ? { afterDueAt: Number.MIN_SAFE_INTEGER, afterSeq: 0 } : { afterDueAt: start.dueAt, afterSeq: start.seq };
    // Iterated, not fetched: the filter usually stops the scan long before `limit`. The leases are
    // taken after the scan, since the connection runs nothing else while a statement iterates.
    for (const raw of dueRows.iterate({ now, limit, ...after }) as IterableIterator<RawDue>) {
      const verdict = accept(raw.url, { dueAt: raw.next_attempt_at, seq: raw.seq });
      if (verdict === 'stop') break;
      if (verdict === 'skip') continue;
      claimed.push(claimedFrom(raw, lease));
    }
    for (const row of claimed) takeLease.run({ seq: row.seq, lease, now });
    return claimed;
  }

  // IMMEDIATE: these read then write; taking the write lock first means two dispatcher processes
  // queue on busy_timeout instead of one failing to upgrade its read lock.
  const settleTransaction = client.transaction((finished: readonly FinishedDelivery[], now: number, claim: Claim | undefined) => {
    const rows = finishRows(finished, now, claim);
    const start = claim ? (claim.scanFrom?.() ?? 'first') : 'none';
    if (claim && start !== 'none') rows.push(...claimRows(now, claim, start));
    addSigningSecrets(rows);
    return rows;
  });

  const releaseTransaction = client.transaction((leases: readonly { seq: number; leaseExpiresAt: number }[], now: number) => {
    for (const { seq, leaseExpiresAt } of leases) releaseLease.run({ seq, lease: leaseExpiresAt, now });
  });

  /*
   * A row created at or after the cutoff ends the walk: it and every later row (created later
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
    /** Call inside the transaction that records the event, so the change and its callback commit together. */
    enqueue(entry: OutboxEntry, now: number): void {
      enqueue.run({ ...entry, now });
    },

    /**
     * In one transaction: returns lapsed leases to the queue, then looks at up to `limit` due rows
     * and leases those `accept` takes until `now + leaseMs`.
     */
    claimDue(now: number, leaseMs: number, limit: number, accept: ClaimFilter = () => 'take'): ClaimedDelivery[] {
      return settleTransaction.immediate([], now, { leaseMs, limit, accept });
    },

    /** Records a batch of attempts and their outcomes in one transaction; followers they let go become due. */
    finish(finished: readonly FinishedDelivery[], now: number): void {
      if (finished.length > 0) settleTransaction.immediate(finished, now, undefined);
    },

    /**
     * One transaction per dispatcher tick: records the finished attempts, leases the followers they
     * let go that `claim.accept` takes, then claims due rows as claimDue does. Followers come first
     * in the result, and pass through the same filter, so per-host limits hold for both.
     */
    finishAndClaim(finished: readonly FinishedDelivery[], now: number, claim: Claim): ClaimedDelivery[] {
      return settleTransaction.immediate(finished, now, claim);
    },

    /** Gives claimed rows back to the queue at once (shutdown), unless their lease already went to someone else. */
    release(leases: readonly { seq: number; leaseExpiresAt: number }[], now: number): void {
      if (leases.length > 0) releaseTransaction.immediate(leases, now);
    },

    /** How many deliveries are in each state (webhook_deliveries_due_idx): for metrics and benchmarks. */
    countByState(): Record<DeliveryState, number> {
      const counts: Record<DeliveryState, number> = { pending: 0, delivering: 0, delivered: 0, failed: 0 };
      for (const row of db.select({ state: webhookDeliveries.state, total: count() }).from(webhookDeliveries).groupBy(webhookDeliveries.state).all()) {
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
      return db
        .select()
        .from(webhookDeliveries)
        .where(failedWhere(since, window))
        // The partial index's own order (completed_at, then rowid): pages without a sort.
        .orderBy(asc(webhookDeliveries.completedAt), asc(webhookDeliveries.seq))
        .limit(window.limit ?? -1) // SQLite reads a negative limit as none
        .all();
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
