import { beforeEach, describe, expect, it } from 'vitest';
import { eventQueries } from '../../../src/db/postgres/queries/events.ts';
import { messageQueries } from '../../../src/db/postgres/queries/messages.ts';
import type { SqliteQueries } from '../../../src/db/sqlite/queries.ts';
import type { Queries } from '../../../src/db/store.ts';
import { ACCOUNT, ALICE, BOB, delivery, message, seedWorld, statusEvent, T0, unroutedRow, useTwins } from '../../helpers/postgres-twins.ts';

const twins = useTwins();

type Events = Queries['events'] | SqliteQueries['events'];
let pg: Queries['events'];

async function expectSame<R>(call: (events: Events) => R | Promise<R>): Promise<R> {
  const fromSqlite = await call(twins.sqlite.events);
  const fromPg = await call(pg);
  expect(fromPg).toEqual(fromSqlite);
  return fromPg;
}

beforeEach(async () => {
  await seedWorld(twins);
  pg = eventQueries(twins.pg) satisfies Queries['events'];
  for (const row of [
    message({ handle: 'out-1', dateSent: T0 + 10 }),
    message({ number: BOB, contactId: 'con_bob', isOutbound: false, status: 'RECEIVED', dateSent: T0 + 20 }),
    message({ number: ALICE, groupId: 'grp_ab', isOutbound: false, status: 'RECEIVED', dateSent: T0 + 30 }),
    message({ dateSent: T0 + 40 }),
  ]) {
    twins.sqlite.messages.insert(row);
    await messageQueries(twins.pg).insert(row);
  }
  await twins.seed('status_events', [
    statusEvent({ id: 'evt_c', messageHandle: 'out-1', receivedAt: T0 + 10 }),
    statusEvent({ id: 'evt_b', messageHandle: 'out-1', status: 'SENT', implied: true, receivedAt: T0 + 40 }),
    statusEvent({ id: 'evt_a', messageHandle: 'out-1', status: 'DELIVERED', source: 'up', receivedAt: T0 + 40 }),
    statusEvent({ id: 'evt_d', messageHandle: 'out-1', status: 'SENT', applied: false, notAppliedReason: 'stale', receivedAt: T0 + 40 }),
    statusEvent({ id: 'evt_e', messageHandle: 'unknown', status: 'READ', errorCode: 5, errorMessage: 'x', receivedAt: T0 + 50 }),
  ]);
  await twins.seed('webhook_deliveries', [delivery(1, { state: 'failed', attemptCount: 2 }), delivery(2, { state: 'delivered' })]);
  await twins.seed('webhook_attempts', [
    { deliverySeq: 1, attemptedAt: T0 + 11, durationMs: 30, statusCode: 500, error: null },
    { deliverySeq: 2, attemptedAt: T0 + 12, durationMs: 31, statusCode: 200, error: null },
    { deliverySeq: 1, attemptedAt: T0 + 21, durationMs: 32, statusCode: null, error: 'timeout' },
  ]);
  await twins.seed('unrouted_inbound', [
    unroutedRow({ receivedAt: T0 + 15 }),
    unroutedRow({ receivedAt: T0 + 45, transportGroupId: 'tg' }),
  ]);
});

describe('the PostgreSQL event queries', () => {
  it('stand at the newest row of each table, as SQLite does', async () => {
    await expectSame((e) => e.latest());
  });

  it('walk back to the last row written before a time', async () => {
    for (const since of [T0, T0 + 11, T0 + 30, T0 + 31, T0 + 41, T0 + 1_000]) {
      for (const table of ['statusEvents', 'messages', 'attempts', 'unrouted'] as const)
        await expectSame((e) => e.lastBefore(table, since));
    }
  });

  it('read the same events as SQLite past a cursor', async () => {
    for (const range of [
      { after: 0, upto: 5, limit: 500 },
      { after: 0, upto: 4, limit: 500 },
      { after: 1, upto: 4, limit: 1 },
      { after: 2, upto: 3, limit: 500 },
    ]) {
      await expectSame((e) => e.statusEvents(range));
      await expectSame((e) => e.inbound(range));
      await expectSame((e) => e.attempts(range));
      await expectSame((e) => e.unrouted(range));
    }
  });

  it('read status events batch by batch, each after the last one read', async () => {
    const batch = await expectSame((e) => e.statusEvents({ after: 1, upto: 5, limit: 2 }));
    expect(batch.map((row) => row.status)).toEqual(['SENT', 'DELIVERED']);
    const next = await expectSame((e) => e.statusEvents({ after: batch.at(-1)!.id, upto: 5, limit: 2 }));
    expect(next.map((row) => row.account)).toEqual([`${ACCOUNT}@example.com`, null]);
  });
});
