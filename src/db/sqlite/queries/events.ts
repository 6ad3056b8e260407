import type { DeliveryAttemptFacts, InboundFacts, StatusEventFacts, UnroutedFacts } from '../../../domain/event-views.ts';
import type { Db } from '../connection.ts';

/**
 * Where a reader of the event tables stands: the last rowid it read of each. SQLite has one
 * writer at a time and hands out rowids above every committed one, so rows appear in rowid order
 * and a reader (WAL lets it run beside the server) that remembers rowids misses none.
 */
export type EventCursor = { statusEvents: number; messages: number; attempts: number; unrouted: number };

export type EventTable = keyof EventCursor;

/** A row read past a cursor: its rowid, for the next cursor. */
export type Followed<T> = T & { id: number };

/** A row as SQLite answers it: booleans as 0 or 1. */
type Raw<T, Flags extends keyof T> = Omit<T, Flags> & { [K in Flags]: number } & { id: number };

/** Raw SQL: rowid ranges joined across tables, which drizzle's builder has no column for. */
export function eventQueries(db: Db) {
  const client = db.$client;

  // max(rowid) is one step down the table's B-tree, not a scan.
  const latest = client.prepare(`
    select coalesce((select max(rowid) from status_events), 0) as statusEvents,
      coalesce((select max(id) from messages), 0) as messages,
      coalesce((select max(id) from webhook_attempts), 0) as attempts,
      coalesce((select max(id) from unrouted_inbound), 0) as unrouted`);

  // Newest first, for --since: the walk stops at the first row older than the time asked for.
  const newestFirst = (sql: string) => client.prepare<[], { id: number; at: number }>(sql);
  const walkBack: Record<EventTable, ReturnType<typeof newestFirst>> = {
    statusEvents: newestFirst('select rowid as id, received_at as at from status_events order by rowid desc'),
    messages: newestFirst('select id, date_sent as at from messages order by id desc'),
    attempts: newestFirst('select id, attempted_at as at from webhook_attempts order by id desc'),
    unrouted: newestFirst('select id, received_at as at from unrouted_inbound order by id desc'),
  };

  // Each reads a rowid range of its table (the primary key), and its joins by unique keys.
  // `+@limit`: a bare bound LIMIT would be re-planned on every call (see unplannedParam).
  const statusEvents = client.prepare(`
    select e.rowid as id, e.received_at as at, a.email as account, e.message_handle as messageHandle, e.status,
      e.applied, e.implied, e.not_applied_reason as notAppliedReason, e.source, e.error_code as errorCode,
      e.error_message as errorMessage
    from status_events e
      left join messages m on m.handle = e.message_handle
      left join accounts a on a.id = m.account_id
    where e.rowid > @after and e.rowid <= @upto
    order by e.rowid limit +@limit`);
  const inbound = client.prepare(`
    select m.id, m.date_sent as at, a.email as account, m.handle as messageHandle, m.number as fromNumber,
      m.line_number as toNumber, m.group_id as groupId, m.content, m.media_url as mediaUrl
    from messages m join accounts a on a.id = m.account_id
    where m.id > @after and m.id <= @upto and m.is_outbound = 0
    order by m.id limit +@limit`);
  const attempts = client.prepare(`
    select t.id, t.attempted_at as at, a.email as account, d.webhook_id as webhookId, d.event_type as eventType,
      d.message_handle as messageHandle, d.url,
      (select count(*) from webhook_attempts p where p.delivery_seq = t.delivery_seq and p.id <= t.id) as attempt,
      t.status_code as statusCode, t.error, t.duration_ms as durationMs,
      not exists (select 1 from webhook_attempts n where n.delivery_seq = t.delivery_seq and n.id > t.id) as isLatest,
      d.state as deliveryState
    from webhook_attempts t
      join webhook_deliveries d on d.seq = t.delivery_seq
      join accounts a on a.id = d.account_id
    where t.id > @after and t.id <= @upto
    order by t.id limit +@limit`);

  const unrouted = client.prepare(`
    select id, received_at as at, from_number as fromNumber, to_number as toNumber, transport_group_id as groupId,
      content, media_url as mediaUrl, source
    from unrouted_inbound
    where id > @after and id <= @upto
    order by id limit +@limit`);

  type Range = { after: number; upto: number; limit: number };

  return {
    /** The newest rowid of each table: a cursor from which only new events are read. */
    latest(): EventCursor {
      return latest.get() as EventCursor;
    },

    /** The last rowid of `table` written before `since`: reads only the rows written since. */
    lastBefore(table: EventTable, since: number): number {
      for (const row of walkBack[table].iterate()) {
        if (row.at < since) return row.id;
      }
      return 0;
    },

    /** Status events in (after, upto], applied or not, oldest first. */
    statusEvents(range: Range): Followed<StatusEventFacts>[] {
      return (statusEvents.all(range) as Raw<StatusEventFacts, 'applied' | 'implied'>[]).map((row) => ({
        ...row,
        applied: row.applied === 1,
        implied: row.implied === 1,
      }));
    },

    /** Messages from end users among the messages in (after, upto], oldest first. */
    inbound(range: Range): Followed<InboundFacts>[] {
      return inbound.all(range) as Followed<InboundFacts>[];
    },

    /** Inbound messages for lines no account owns in (after, upto], oldest first. */
    unrouted(range: Range): Followed<UnroutedFacts>[] {
      return unrouted.all(range) as Followed<UnroutedFacts>[];
    },

    /** Webhook attempts in (after, upto], oldest first, with their delivery. */
    attempts(range: Range): Followed<DeliveryAttemptFacts>[] {
      return (attempts.all(range) as Raw<DeliveryAttemptFacts, 'isLatest'>[]).map(({ isLatest, ...row }) => ({
        ...row,
        isLatest: isLatest === 1,
      }));
    },
  };
}
