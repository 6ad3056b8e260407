import { type SQL, sql } from 'drizzle-orm';
import type { DeliveryAttemptFacts, InboundFacts, StatusEventFacts, UnroutedFacts } from '../../../domain/event-views.ts';
import type { EventCursor, EventTable, Followed } from '../../sqlite/queries/events.ts';
import type { PgDb } from '../db.ts';
import { statusEvents } from '../schema.ts';
import { rawRows } from './raw-rows.ts';
import { arrivalOrder } from './status-event-order.ts';

/** Rows read per step of a walk back from the newest row. */
const WALK_BATCH = 1_000;

type Range = { after: number; upto: number; limit: number };

/*
 * Raw SQL: ranges joined across tables, with correlated counts. postgres.js answers bigint as a
 * string; the ids and times are read as float8, a JS number, exact below 2^53.
 *
 * Where a reader stands: messages, attempts and unrouted rows by their serial id, as SQLite does
 * by rowid. status_events has no insertion column in PostgreSQL (its id is a UUIDv7, random within
 * a millisecond), so its position is the time it was received: a read takes whole milliseconds.
 * No index starts with received_at: latest() and a read of status events scan the table.
 */

/** The tables walked by id, with the time each row was written. */
const BY_ID: Record<Exclude<EventTable, 'statusEvents'>, { table: SQL; at: SQL }> = {
  messages: { table: sql`messages`, at: sql`date_sent` },
  attempts: { table: sql`webhook_attempts`, at: sql`attempted_at` },
  unrouted: { table: sql`unrouted_inbound`, at: sql`received_at` },
};

export function eventQueries(db: PgDb) {
  async function statusEventsWhere(where: SQL, limit?: number): Promise<Followed<StatusEventFacts>[]> {
    return rawRows<Followed<StatusEventFacts>>(
      db,
      sql`
      select ${statusEvents.receivedAt}::float8 as id, ${statusEvents.receivedAt}::float8 as at, accounts.email as account,
        ${statusEvents.messageHandle} as "messageHandle", ${statusEvents.status} as status, ${statusEvents.applied} as applied,
        ${statusEvents.implied} as implied, ${statusEvents.notAppliedReason} as "notAppliedReason", ${statusEvents.source} as source,
        ${statusEvents.errorCode}::float8 as "errorCode", ${statusEvents.errorMessage} as "errorMessage"
      from ${statusEvents}
        left join messages on messages.handle = ${statusEvents.messageHandle}
        left join accounts on accounts.id = messages.account_id
      where ${where}
      order by ${sql.join(arrivalOrder, sql`, `)}
      ${limit === undefined ? sql`` : sql`limit ${limit}`}`,
    );
  }

  return {
    /** The newest position in each table: a cursor from which only new events are read. */
    async latest(): Promise<EventCursor> {
      const [row] = await rawRows<EventCursor>(
        db,
        sql`
        select coalesce((select max(received_at) from status_events), 0)::float8 as "statusEvents",
          coalesce((select max(id) from messages), 0)::float8 as messages,
          coalesce((select max(id) from webhook_attempts), 0)::float8 as attempts,
          coalesce((select max(id) from unrouted_inbound), 0)::float8 as unrouted`,
      );
      return row!;
    },

    /** The last position in `table` written before `since`: reads only the rows written since. */
    async lastBefore(table: EventTable, since: number): Promise<number> {
      if (table === 'statusEvents') return since - 1;
      const { table: name, at } = BY_ID[table];
      // Newest first, for --since: the walk stops at the first row older than the time asked for.
      for (let below = Number.MAX_SAFE_INTEGER; ; ) {
        const rows = await rawRows<{ id: number; at: number }>(
          db,
          sql`select id::float8 as id, ${at}::float8 as at from ${name} where id < ${below} order by id desc limit ${WALK_BATCH}`,
        );
        const older = rows.find((row) => row.at < since);
        if (older) return older.id;
        if (rows.length < WALK_BATCH) return 0;
        below = rows.at(-1)!.id;
      }
    },

    /**
     * Status events received in (after, upto], applied or not, oldest first. A full batch is
     * completed with the rest of its last millisecond, so that the next read can start after it.
     */
    async statusEvents(range: Range): Promise<Followed<StatusEventFacts>[]> {
      const rows = await statusEventsWhere(
        sql`${statusEvents.receivedAt} > ${range.after} and ${statusEvents.receivedAt} <= ${range.upto}`,
        range.limit,
      );
      if (rows.length < range.limit) return rows;
      const lastAt = rows.at(-1)!.at;
      const lastMillisecond = await statusEventsWhere(sql`${statusEvents.receivedAt} = ${lastAt}`);
      return [...rows.filter((row) => row.at < lastAt), ...lastMillisecond];
    },

    /** Messages from end users among the messages in (after, upto], oldest first. */
    async inbound(range: Range): Promise<Followed<InboundFacts>[]> {
      return rawRows<Followed<InboundFacts>>(
        db,
        sql`
        select m.id::float8 as id, m.date_sent::float8 as at, a.email as account, m.handle as "messageHandle", m.number as "fromNumber",
          m.line_number as "toNumber", m.group_id as "groupId", m.content, m.media_url as "mediaUrl"
        from messages m join accounts a on a.id = m.account_id
        where m.id > ${range.after} and m.id <= ${range.upto} and not m.is_outbound
        order by m.id limit ${range.limit}`,
      );
    },

    /** Inbound messages for lines no account owns in (after, upto], oldest first. */
    async unrouted(range: Range): Promise<Followed<UnroutedFacts>[]> {
      return rawRows<Followed<UnroutedFacts>>(
        db,
        sql`
        select id::float8 as id, received_at::float8 as at, from_number as "fromNumber", to_number as "toNumber",
          transport_group_id as "groupId", content, media_url as "mediaUrl", source
        from unrouted_inbound
        where id > ${range.after} and id <= ${range.upto}
        order by id limit ${range.limit}`,
      );
    },

    /** Webhook attempts in (after, upto], oldest first, with their delivery. */
    async attempts(range: Range): Promise<Followed<DeliveryAttemptFacts>[]> {
      return rawRows<Followed<DeliveryAttemptFacts>>(
        db,
        sql`
        select t.id::float8 as id, t.attempted_at::float8 as at, a.email as account, d.webhook_id as "webhookId",
          d.event_type as "eventType", d.message_handle as "messageHandle", d.url,
          (select count(*) from webhook_attempts p where p.delivery_seq = t.delivery_seq and p.id <= t.id)::float8 as attempt,
          t.status_code::float8 as "statusCode", t.error, t.duration_ms::float8 as "durationMs",
          not exists (select 1 from webhook_attempts n where n.delivery_seq = t.delivery_seq and n.id > t.id) as "isLatest",
          d.state as "deliveryState"
        from webhook_attempts t
          join webhook_deliveries d on d.seq = t.delivery_seq
          join accounts a on a.id = d.account_id
        where t.id > ${range.after} and t.id <= ${range.upto}
        order by t.id limit ${range.limit}`,
      );
    },
  };
}
