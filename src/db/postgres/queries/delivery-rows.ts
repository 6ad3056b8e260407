/** The outbox rows and conditions the PostgreSQL twins of the dispatcher's statements share (delivery-claims.ts, delivery-outcomes.ts). */

import { type AnyColumn, and, eq, inArray, type SQL, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { CandidateDelivery } from '../../sqlite/queries/delivery-rows.ts';
import { webhookDeliveries } from '../schema.ts';

export type DeliveryTable = typeof webhookDeliveries;
/** The columns a queue condition reads, of the table or of an alias of it. */
type LineColumns = { messageHandle: AnyColumn; url: AnyColumn; state: AnyColumn };

export const candidateColumns = (t: DeliveryTable) => ({
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

export const unfinished = (t: LineColumns): SQL => inArray(t.state, ['pending', 'delivering']);

/** The rows of one message and URL: the queue's order is kept within these (webhook_deliveries_order_idx). */
export const sameLine = (t: LineColumns, messageHandle: string | SQL, url: string | SQL): SQL =>
  and(eq(t.messageHandle, messageHandle), eq(t.url, url))!;

/** The table again, under another name, for the conditions on a row's neighbours. */
const EARLIER = 'earlier';
export const earlier = alias(webhookDeliveries, EARLIER);
/** `earlier` in a FROM clause of SQL written by hand (the builder names the table itself). */
export const fromEarlier = sql`${webhookDeliveries} as ${sql.identifier(EARLIER)}`;

/**
 * Whether a new row of this message and URL (values, or a source row's columns) waits: the last
 * unfinished row of its message and URL is locked until this transaction commits, so whoever
 * finishes that row waits for the commit and then sees the new row to let go. A last row already
 * locked by another transaction (being claimed or finished right now) is not waited for, which
 * could deadlock: the new row is then due at once, and the claim's order check still holds it
 * back until every earlier row finished.
 */
export const waitsBehindLastUnfinished = (messageHandle: string | SQL, url: string | SQL): SQL => sql`exists (
  select 1 from ${webhookDeliveries}
  where ${webhookDeliveries.seq} = (select max(${earlier.seq}) from ${fromEarlier}
      where ${sameLine(earlier, messageHandle, url)} and ${unfinished(earlier)})
    and ${unfinished(webhookDeliveries)}
  for update skip locked)`;

export const bySeq = (rows: readonly Pick<CandidateDelivery, 'seq'>[]): SQL =>
  inArray(
    webhookDeliveries.seq,
    rows.map((row) => row.seq),
  );

/** A candidate as raw SQL answers it: postgres.js gives bigint columns as strings. */
export type RawCandidate = {
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

export const RAW_CANDIDATE_COLUMNS = 'seq, webhook_id, account_id, message_handle, event_type, url, payload, attempt_count, signing_secret';

export function candidateOf(row: RawCandidate): CandidateDelivery {
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
