import { type SQL, sql } from 'drizzle-orm';
import { WAITS_FOR_EARLIER_CALLBACK } from '../../../domain/delivery-views.ts';
import type { OutboxEntry } from '../../sqlite/queries/delivery-rows.ts';
import type { PgDb } from '../db.ts';
import { webhookDeliveries } from '../schema.ts';
import { waitsBehindLastUnfinished } from './delivery-rows.ts';
import { sqlPreparedOnce } from './prepared-once.ts';
import { unnestedRows } from './unnested-rows.ts';

/** A callback a whole write queues: `call` is the place (from 1) of the write that queues it, `at` that write's time. */
export type CallbackToQueue = { call: number; callback: OutboxEntry; at: number };

/** The callbacks of a batch of whole writes, in their order: the relation `callbacks_offered`. */
export const callbacksOffered = unnestedRows<CallbackToQueue>('callbacks_offered', [
  ['call', 'bigint', (c) => c.call],
  ['webhook_id', 'text', (c) => c.callback.webhookId],
  ['account_id', 'text', (c) => c.callback.accountId],
  ['message_handle', 'text', (c) => c.callback.messageHandle],
  ['event_type', 'text', (c) => c.callback.eventType],
  ['url', 'text', (c) => c.callback.url],
  ['payload', 'text', (c) => c.callback.payload],
  ['signing_secret', 'text', (c) => c.callback.signingSecret],
  ['at', 'bigint', (c) => c.at],
]);

/**
 * The CTE `callbacks_queued` of a whole write: queues the rows of the CTE `callbacks_in` (the
 * columns of callbacksOffered) as outbox.enqueue does, in their order. The statement's own rows
 * are not visible to its subqueries, so a row also waits behind an earlier one of the same
 * message and URL in it.
 */
const callbacksQueued: SQL = sql`callbacks_queued as (
  insert into ${webhookDeliveries}
    (webhook_id, account_id, message_handle, event_type, url, payload, signing_secret, state, next_attempt_at, created_at, updated_at)
  select webhook_id, account_id, message_handle, event_type, url, payload, signing_secret, 'pending',
    case when nth > 1 or ${waitsBehindLastUnfinished(sql`c.message_handle`, sql`c.url`)}
      then ${sql.raw(String(WAITS_FOR_EARLIER_CALLBACK))}::bigint else at end, at, at
  from (select *, row_number() over (partition by message_handle, url order by ord) as nth from callbacks_in) as c
  order by ord)`;

/**
 * A whole-write statement in two texts, each built once: with the CTEs queuing the callbacks
 * `callbacksIn` selects (from callbacksOffered), placed where `statement` puts `queued`, and
 * without them, for a batch that queues none: the row lock that makes a callback wait costs
 * PostgreSQL more to set up than the rest of a one-send statement, even when no row reaches it.
 */
export function withAndWithoutCallbacks(name: string, statement: (queued: SQL) => SQL, callbacksIn: SQL) {
  const withCallbacks = sqlPreparedOnce<Record<string, unknown>>(`${name}_with_callbacks`, () =>
    statement(sql`,
callbacks_in as (${callbacksIn}),
${callbacksQueued}`),
  );
  const withoutCallbacks = sqlPreparedOnce<Record<string, unknown>>(name, () => statement(sql``));
  return (db: PgDb, values: Record<string, unknown[]>, queuesCallbacks: boolean) =>
    (queuesCallbacks ? withCallbacks : withoutCallbacks)(db).execute(values);
}
