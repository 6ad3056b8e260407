import { type SQL, sql } from 'drizzle-orm';
import { WAITS_FOR_EARLIER_CALLBACK } from '../../../domain/delivery-views.ts';
import type { OutboxEntry } from '../../sqlite/queries/delivery-rows.ts';
import type { PgDb } from '../db.ts';
import { webhookDeliveries } from '../schema.ts';
import { waitsBehindLastUnfinished } from './delivery-rows.ts';

/**
 * The CTE of a whole write queuing its callbacks as outbox.enqueue does, written only when `onlyIf`
 * (a CTE's name) returned a row; numbered in their order. The statement's own rows are not visible
 * to its subqueries, so a row also waits behind an earlier one of the same message and URL in it.
 */
export function callbacksQueued(db: PgDb, callbacks: readonly OutboxEntry[], at: number, onlyIf?: string) {
  const rows = sql.join(
    callbacks.map(
      (c, i) =>
        sql`(${i}::int, ${c.webhookId}::text, ${c.accountId}::text, ${c.messageHandle}::text, ${c.eventType}::text, ${c.url}::text, ${c.payload}::text, ${c.signingSecret ?? null}::text)`,
    ),
    sql`, `,
  );
  const when: SQL = onlyIf === undefined ? sql`` : sql` where exists (select 1 from ${sql.identifier(onlyIf)})`;
  return db.$with('callbacks_queued', {}).as(sql`
    insert into ${webhookDeliveries}
      (webhook_id, account_id, message_handle, event_type, url, payload, signing_secret, state, next_attempt_at, created_at, updated_at)
    select webhook_id, account_id, message_handle, event_type, url, payload, signing_secret, 'pending',
      case when nth > 1 or ${waitsBehindLastUnfinished(sql`c.message_handle`, sql`c.url`)}
        then ${WAITS_FOR_EARLIER_CALLBACK}::bigint else ${at}::bigint end, ${at}::bigint, ${at}::bigint
    from (select *, row_number() over (partition by message_handle, url order by place) as nth
      from (values ${rows}) as v (place, webhook_id, account_id, message_handle, event_type, url, payload, signing_secret)) as c${when}
    order by place`);
}
