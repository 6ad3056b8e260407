import { sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PgDb } from '../../../src/db/postgres/db.ts';
import * as schema from '../../../src/db/postgres/schema.ts';
import { createPostgresStore } from '../../../src/db/postgres/store.ts';
import type { Store } from '../../../src/db/store.ts';
import { ACCOUNT, ALICE, seedWorld, T0, useTwins } from '../../helpers/postgres-twins.ts';

/**
 * The pruning, listing, claim and lookup queries find their rows through an index, not by reading
 * a whole table: each statement a store method runs is explained on a few thousand rows per table.
 */

const ROWS = 3_000;
/** An account next to ACCOUNT's thousands of rows: what it counts or sums must not read theirs. */
const SMALL_ACCOUNT = 'acc_small';
const BIG_TABLES = [
  'messages',
  'status_events',
  'contacts',
  'idempotency_keys',
  'inbox_sessions',
  'account_events',
  'webhook_deliveries',
  'webhook_attempts',
  'orphan_status_events',
  'unrouted_inbound',
  'sandbox_steps',
  'media_objects',
];

const twins = useTwins();
let client: postgres.Sql;
let store: Store;
const statements: { query: string; params: unknown[] }[] = [];

beforeEach(async () => {
  await seedWorld(twins);
  await twins.pg.execute(
    sql.raw(`
    insert into messages (handle, account_id, is_outbound, message_type, status, line_number, number, transport_handle, date_sent, date_updated)
      select 'h-' || i, '${ACCOUNT}', true, 'message', 'SENT', '+15550000001', '+1415555' || lpad(i::text, 4, '0'), 't-' || i, ${T0} + i, ${T0} + i
      from generate_series(1, ${ROWS}) i;
    insert into status_events (id, message_handle, status, source, source_event_id, applied, received_at)
      select 'evt_' || i, 'h-' || (i % 1000), 'SENT', 'up', 'e-' || i, false, ${T0} + i from generate_series(1, ${ROWS}) i;
    insert into contacts (id, account_id, phone, first_name, last_name, last_message_at, created_at)
      select 'con_' || i, '${ACCOUNT}', '+1212555' || lpad(i::text, 4, '0'), md5(i::text), md5((-i)::text),
        case when i % 3 = 0 then null else ${T0} + i end, ${T0} + i
      from generate_series(1, ${ROWS}) i;
    insert into media_objects (id, account_id, source_url, content_type, bytes, byte_length, created_at)
      select 'm-' || i, '${ACCOUNT}', 'https://a.test/m.png', 'image/png', '\\x00', 1, ${T0} + i from generate_series(1, ${ROWS}) i;
    insert into idempotency_keys (account_id, key, request_hash, response_status, response_body, created_at)
      select '${ACCOUNT}', 'k-' || i, 'h', 200, '{}', ${T0} + i from generate_series(1, ${ROWS}) i;
    insert into inbox_sessions (token_hash, account_id, api_secret_hash, created_at, expires_at)
      select 'tok-' || i, '${ACCOUNT}', 'h', ${T0}, ${T0} + i from generate_series(1, ${ROWS}) i;
    insert into account_events (account_id, seq, type, data, occurred_at)
      select '${ACCOUNT}', i, 'message.updated', '{}', ${T0} + i from generate_series(1, ${ROWS}) i;
    insert into webhook_deliveries (webhook_id, account_id, message_handle, event_type, url, payload, state, next_attempt_at, created_at, updated_at, completed_at)
      select 'msg_' || i, '${ACCOUNT}', 'h-' || i, 'message.status', 'https://a.test/cb', '{}',
        case when i > ${ROWS - 10} then 'pending' else 'delivered' end, ${T0} + i, ${T0} + i, ${T0} + i,
        case when i > ${ROWS - 10} then null else ${T0} + i end
      from generate_series(1, ${ROWS}) i;
    insert into webhook_attempts (delivery_seq, attempted_at, duration_ms, status_code)
      select i, ${T0} + i, 10, 200 from generate_series(1, ${ROWS}) i;
    insert into orphan_status_events (transport_handle, status, source, received_at)
      select 'o-' || i, 'SENT', 'up', ${T0} + i from generate_series(1, ${ROWS}) i;
    insert into unrouted_inbound (from_number, to_number, service, source, received_at)
      select '+14155550100', '+15559999999', 'SMS', 'up', ${T0} + i from generate_series(1, ${ROWS}) i;
    insert into sandbox_steps (message_handle, step_index, kind, status, due_at)
      select 'h-' || i, 0, 'status', 'SENT', ${T0} + ${ROWS} + i from generate_series(1, ${ROWS}) i;
    analyze;`),
  );
  statements.length = 0;
  client = postgres(twins.url, {
    max: 1,
    onnotice: () => {},
    debug: (_connection, query, params) => statements.push({ query, params }),
  });
  store = createPostgresStore(drizzle({ client, schema, casing: 'snake_case' }) as PgDb);
});
afterEach(() => client.end());

/** The tables read whole by the statements `work` runs, by name. */
async function tablesScannedBy(work: (store: Store) => Promise<unknown>): Promise<string[]> {
  statements.length = 0;
  await work(store);
  const scanned = new Set<string>();
  const ran = statements.filter(({ query }) => /^\s*(select|delete|update|insert|with)/i.test(query));
  expect(ran.length).toBeGreaterThan(0);
  for (const { query, params } of ran) {
    const plan = await twins.pg.$client.unsafe<{ 'QUERY PLAN': string }[]>(`explain ${query}`, params as never[]);
    for (const { 'QUERY PLAN': line } of plan) {
      const table = /Seq Scan on (\w+)/.exec(line)?.[1];
      if (table !== undefined && BIG_TABLES.includes(table)) {
        scanned.add(table);
        console.log(query, plan.map((r) => r['QUERY PLAN']).join('\n'));
      }
    }
  }
  return [...scanned];
}

describe('on a few thousand rows, no PostgreSQL query reads a whole big table', () => {
  it.each<[string, (store: Store) => Promise<unknown>]>([
    ['idempotency keys pruned by age', (s) => s.idempotency.pruneCreatedBy(T0 + 10, 0, 100)],
    ['inbox sessions pruned when expired', (s) => s.inbox.pruneExpiredSessions(T0 + 10, 0, 100)],
    ['an account’s expired inbox sessions', (s) => s.inbox.deleteExpiredSessions(ACCOUNT, T0 + 10)],
    [
      'account events after an id, and the latest',
      (s) => Promise.all([s.accountEvents.after(ACCOUNT, 1_500, 50), s.accountEvents.latestId(ACCOUNT)]),
    ],
    ['account events pruned by age', (s) => s.accountEvents.pruneOccurredBy(T0 + 10, 0, 100)],
    [
      'tail: where it stands, and status events after it',
      (s) => Promise.all([s.events.latest(), s.events.statusEvents({ after: 1_500, upto: 2_000, limit: 50 })]),
    ],
    ['tail: the last status event before a time', (s) => s.events.lastBefore('statusEvents', T0 + ROWS - 10)],
    ['a message’s history, and inbox histories', (s) => Promise.all([s.messages.history('h-5'), s.inbox.histories(['h-5', 'h-6'])])],
    [
      'a source event seen, a message by the transport’s handle',
      (s) => Promise.all([s.messages.sourceEventSeen('up', 'e-5'), s.messages.findByAnyHandle('t-5')]),
    ],
    [
      'a report’s target: its event id seen, else its message locked by either handle; a send’s contact and pin',
      (s) =>
        s.transaction((tx) =>
          Promise.all([
            tx.messages.findReportTarget('h-5', 'up', 'e-5'),
            tx.messages.findReportTarget('t-6', 'up', null),
            tx.contacts.findWithPin(ACCOUNT, ALICE),
          ]),
        ),
    ],
    [
      'contacts listed by name and by last message',
      (s) =>
        Promise.all([
          s.contacts.list(ACCOUNT, { orderBy: 'firstName', direction: 'asc', limit: 50, offset: 0 }),
          s.contacts.list(ACCOUNT, { orderBy: 'lastName', direction: 'desc', limit: 50, offset: 0 }),
          s.contacts.list(ACCOUNT, { orderBy: 'last_date', direction: 'desc', limit: 50, offset: 0 }),
          s.contacts.listV2(ACCOUNT, { orderBy: 'phone', direction: 'asc', limit: 50, offset: 0 }),
        ]),
    ],
    [
      'messages listed, whole and by number, status and contact',
      (s) =>
        Promise.all([
          s.messages.list(ACCOUNT, {}, 50, 0),
          s.messages.list(ACCOUNT, { number: '+14155550005' }, 50, 0),
          s.messages.list(ACCOUNT, { status: 'SENT' }, 50, 0),
          s.messages.list(ACCOUNT, { contactId: 'con_alice' }, 50, 0),
          s.messagesV2.listJson(ACCOUNT, {}, { by: 'sent', direction: 'desc' }, 50, 0, { email: 'a@example.com', plan: 'sapphire' }),
        ]),
    ],
    ['conversations listed', (s) => s.conversations.list(ACCOUNT, 50)],
    [
      'live contacts counted, also for the quota',
      (s) => s.transaction((tx) => Promise.all([tx.contacts.countLive(SMALL_ACCOUNT), tx.contacts.countLiveForUpdate(SMALL_ACCOUNT)])),
    ],
    [
      'contacts listed the SDK’s ways',
      (s) =>
        Promise.all(
          (['created_at', 'updated_at', 'first_name', 'last_name'] as const).map((orderBy) =>
            s.contacts.listV2(ACCOUNT, { orderBy, direction: 'desc', limit: 50, offset: 0 }),
          ),
        ),
    ],
    ['a small account’s stored media bytes', (s) => s.transaction((tx) => tx.media.storedBytesForUpdate(SMALL_ACCOUNT))],
    ['media objects pruned by age', (s) => s.media.pruneCreatedBy(T0 + 10, 0, 100)],
    [
      'the delivery log listed, and a callback’s blocker',
      (s) =>
        Promise.all([
          s.outbox.listForAccount(ACCOUNT, { limit: 50, offset: 0 }),
          s.outbox.listForAccount(ACCOUNT, { state: 'pending', limit: 50, offset: 0 }),
          s.outbox.blockerOf({ seq: 500, messageHandle: 'h-500', url: 'https://a.test/cb' }),
          s.outbox.attemptsOf([5, 6]),
        ]),
    ],
    ['due callbacks', (s) => s.outbox.dueCallbacks(T0 + ROWS, 'first', 10)],
    ['the delivery log pruned', (s) => s.outbox.pruneFinished(T0 + 10, 0, 100)],
    [
      'orphan events and unrouted messages pruned',
      (s) => Promise.all([s.orphans.pruneReceivedBy(T0 + 10, 0, 100), s.unrouted.pruneReceivedBy(T0 + 10, 0, 100)]),
    ],
    ['the next sandbox step', (s) => s.transaction((tx) => tx.sandbox.nextDue(T0 + ROWS + 5))],
  ])('%s', async (_name, work) => {
    expect(await tablesScannedBy(work)).toEqual([]);
  });
});
