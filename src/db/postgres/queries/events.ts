import { type SQL, sql } from 'drizzle-orm';
import type { DeliveryAttemptFacts, InboundFacts, StatusEventFacts, UnroutedFacts } from '../../../domain/event-views.ts';
import type { EventCursor, EventTable, Followed } from '../../sqlite/queries/events.ts';
import type { PgDb } from '../db.ts';
import { writtenByFinishedTransaction } from '../final-rows.ts';
import { rawRows } from './raw-rows.ts';

/** Rows read per step of a walk back from the newest row. */
const WALK_BATCH = 1_000;

type Range = { after: number; upto: number; limit: number };

/*
 * Raw SQL: ranges joined across tables, with correlated counts. postgres.js answers bigint as a
 * string; the ids and times are read as float8, a JS number, exact below 2^53.
 *
 * Where a reader stands: messages, attempts and unrouted rows by their serial id, as SQLite does
 * by rowid. Status events by their seq, read in (writing transaction, seq) order and only as far
 * as the rows are final (../final-rows.ts): several instances insert at once, and a seq taken by a
 * transaction that commits late would otherwise fall behind a reader that already passed it.
 */

/** The tables walked by serial, with the time each row was written and which rows a reader may stand at. */
const BY_ID: Record<EventTable, { table: SQL; id: SQL; at: SQL; standable: SQL }> = {
  statusEvents: { table: sql`status_events`, id: sql`seq`, at: sql`received_at`, standable: writtenByFinishedTransaction(sql`written_by`) },
  messages: { table: sql`messages`, id: sql`id`, at: sql`date_sent`, standable: sql`true` },
  attempts: { table: sql`webhook_attempts`, id: sql`id`, at: sql`attempted_at`, standable: sql`true` },
  unrouted: { table: sql`unrouted_inbound`, id: sql`id`, at: sql`received_at`, standable: sql`true` },
};

/** Where the status event of this seq stands in (writing transaction, seq) order; 0 stands before every event. */
const standingOf = (seq: number) => sql`(coalesce((select written_by from status_events where seq = ${seq}), 0), ${seq}::bigint)`;

export function eventQueries(db: PgDb) {
  return {
    /** The newest position in each table: a cursor from which only new events are read. */
    async latest(): Promise<EventCursor> {
      const [row] = await rawRows<EventCursor>(
        db,
        sql`
        select coalesce((select seq from status_events where ${writtenByFinishedTransaction(sql`written_by`)}
            order by written_by desc, seq desc limit 1), 0)::float8 as "statusEvents",
          coalesce((select max(id) from messages), 0)::float8 as messages,
          coalesce((select max(id) from webhook_attempts), 0)::float8 as attempts,
          coalesce((select max(id) from unrouted_inbound), 0)::float8 as unrouted`,
      );
      return row!;
    },

    /** The last position in `table` written before `since`: reads only the rows written since. */
    async lastBefore(table: EventTable, since: number): Promise<number> {
      const { table: name, id, at, standable } = BY_ID[table];
      // Newest first, for --since: the walk stops at the first row older than the time asked for.
      for (let below = Number.MAX_SAFE_INTEGER; ; ) {
        const rows = await rawRows<{ id: number; at: number }>(
          db,
          sql`select ${id}::float8 as id, ${at}::float8 as at from ${name} where ${id} < ${below} and ${standable}
            order by ${id} desc limit ${WALK_BATCH}`,
        );
        const older = rows.find((row) => row.at < since);
        if (older) return older.id;
        if (rows.length < WALK_BATCH) return 0;
        below = rows.at(-1)!.id;
      }
    },

    /**
     * Status events after position `after` up to position `upto` (both seqs, `upto` from latest(),
     * so every event read is final), applied or not, in (writing transaction, seq) order.
     */
    async statusEvents(range: Range): Promise<Followed<StatusEventFacts>[]> {
      return rawRows<Followed<StatusEventFacts>>(
        db,
        sql`
        select e.seq::float8 as id, e.received_at::float8 as at, accounts.email as account,
          e.message_handle as "messageHandle", e.status as status, e.applied as applied, e.implied as implied,
          e.not_applied_reason as "notAppliedReason", e.source as source, e.error_code::float8 as "errorCode",
          e.error_message as "errorMessage"
        from status_events e
          left join messages on messages.handle = e.message_handle
          left join accounts on accounts.id = messages.account_id
        where (e.written_by, e.seq) > ${standingOf(range.after)} and (e.written_by, e.seq) <= ${standingOf(range.upto)}
        order by e.written_by, e.seq
        limit ${range.limit}`,
      );
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
