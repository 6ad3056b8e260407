/**
 * The outbox as a claim reads it: lapsed leases back to the queue, due callbacks in due order
 * (without those of accounts the dispatcher has full), leases on the chosen ones, and giving them
 * back at shutdown. Callers group these in one writeTransaction, so a claim's reads and leases see
 * no other writer in between. Raw SQL: row-value comparisons and planner hints the builder cannot say.
 */

import type { LeftOut } from '../../../domain/callback-claims.ts';
import type { QueuePlace } from '../../../domain/claim-reads.ts';
import type { Db } from '../connection.ts';
import {
  CANDIDATE_COLUMNS,
  type CandidateDelivery,
  type ClaimedDelivery,
  type DueDelivery,
  dueOf,
  leftOutKeys,
  NOTHING_LEFT_OUT,
  type RawDue,
} from './delivery-rows.ts';

type RawSecrets = {
  webhook_secret: string | null;
  previous_webhook_secret: string | null;
  previous_webhook_secret_expires_at: number | null;
};

export function deliveryClaimQueries(db: Db) {
  const client = db.$client;

  // Rows whose claimant died or stalled go back to the queue (webhook_deliveries_lease_idx).
  const expireLeases = client.prepare(`
    update webhook_deliveries set state = 'pending', lease_expires_at = null, updated_at = @now
    where state = 'delivering' and lease_expires_at <= @now`);

  /*
   * Due rows, oldest due first, that are the first unfinished row of their (message, URL): the
   * NOT EXISTS keeps a message's callbacks in order (webhook_deliveries_order_idx: the unary +
   * stops the planner from reading every earlier rowid instead); the due index yields rows already
   * sorted by (next_attempt_at, seq) and carries account_id, so the rows of the accounts left out
   * (@skip, a JSON array) are passed over in the index. An account's rows to a host whose share it
   * holds are left out by '<account id> <URL up to its path>' (@skipShares, as leftOutKeys builds
   * them; the substr is urlBeforePath in SQL). `+@limit`: a bare bound LIMIT is re-planned on every
   * call (see unplannedParam).
   */
  const dueRows = client
    .prepare(`
    select ${CANDIDATE_COLUMNS('d')}, d.next_attempt_at
    from webhook_deliveries d
    where d.state = 'pending' and d.next_attempt_at <= @now and (d.next_attempt_at, d.seq) > (@afterDueAt, @afterSeq)
      and d.account_id not in (select value from json_each(@skip))
      and d.account_id || ' ' || substr(d.url, 1, instr(d.url, '//') + instr(substr(d.url, instr(d.url, '//') + 2) || '/', '/'))
        not in (select value from json_each(@skipShares))
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

  const releaseLease = client.prepare(`
    update webhook_deliveries set state = 'pending', lease_expires_at = null, updated_at = @now
    where seq = @seq and state = 'delivering' and lease_expires_at = @lease`);

  const releaseAll = client.transaction((leases: readonly { seq: number; leaseExpiresAt: number }[], now: number) => {
    for (const { seq, leaseExpiresAt } of leases) releaseLease.run({ seq, lease: leaseExpiresAt, now });
  });

  return {
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

    /** Returns rows whose lease lapsed (their claimant died or stalled) to the queue. */
    expireLeases(now: number): void {
      expireLeases.run({ now });
    },

    /**
     * Due callbacks that may go now (none with an unfinished one ahead of it for the same message
     * and URL), without those `leftOut` names, in due order, after `start`, at most `limit`.
     */
    dueCallbacks(now: number, start: 'first' | QueuePlace, limit: number, leftOut: LeftOut = NOTHING_LEFT_OUT): DueDelivery[] {
      const after =
        start === 'first' ? { afterDueAt: Number.MIN_SAFE_INTEGER, afterSeq: 0 } : { afterDueAt: start.dueAt, afterSeq: start.seq };
      const skip = { skip: JSON.stringify(leftOut.accounts), skipShares: JSON.stringify(leftOutKeys(leftOut)) };
      return (dueRows.all({ now, limit, ...after, ...skip }) as RawDue[]).map(dueOf);
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
