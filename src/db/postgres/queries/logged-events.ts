import { type SQL, sql } from 'drizzle-orm';
import type { NewAccountEvent } from '../../sqlite/queries/account-events.ts';
import { unnestedRows } from './unnested-rows.ts';

/** Account events of a batch of whole writes, in their order: the relation `events_offered`; `call` is the place (from 1) of the write that logs it. */
export const eventsOffered = unnestedRows<{ call: number; event: NewAccountEvent }>('events_offered', [
  ['call', 'bigint', (e) => e.call],
  ['account_id', 'text', (e) => e.event.accountId],
  ['type', 'text', (e) => e.event.type],
  ['data', 'text', (e) => e.event.data],
  ['occurred_at', 'bigint', (e) => e.event.occurredAt],
]);

/**
 * The CTEs appending the rows of the CTE `events_in` (the columns of eventsOffered) to their
 * accounts' logs: one counter update per account takes the account's numbers, locking its
 * counter row until the commit as account-events.ts does (accounts in one order, so two batches
 * never wait on each other crosswise), and each account's events take them in their order.
 */
export const eventsLogged: SQL = sql`events_counted as (
  select account_id, count(*) as n from events_in group by account_id),
events_numbered as (
  insert into account_event_counters (account_id, last_seq) select account_id, n from events_counted order by account_id
  on conflict (account_id) do update set last_seq = account_event_counters.last_seq + excluded.last_seq
  returning account_id, last_seq),
events_appended as (
  insert into account_events (account_id, seq, type, data, occurred_at)
  select e.account_id, numbered.last_seq - counted.n + e.nth, e.type, e.data, e.occurred_at
  from (select *, row_number() over (partition by account_id order by ord) as nth from events_in) as e
    join events_counted as counted on counted.account_id = e.account_id
    join events_numbered as numbered on numbered.account_id = e.account_id
  order by e.ord)`;
