import { beforeEach, describe, expect, it } from 'vitest';
import { messageQueries } from '../../../src/db/postgres/queries/messages.ts';
import type { MessageListFilter, StatusEventInsert } from '../../../src/db/sqlite/queries/messages.ts';
import type { SqliteQueries } from '../../../src/db/sqlite/queries.ts';
import type { Queries } from '../../../src/db/store.ts';
import {
  ACCOUNT,
  ALICE,
  appliedEventOf,
  BOB,
  CAROL,
  message,
  OTHER_ACCOUNT,
  seedWorld,
  T0,
  useTwins,
} from '../../helpers/postgres-twins.ts';

const twins = useTwins();
/** A number in no group. */
const LONER = '+14155550177';

type Messages = Queries['messages'] | SqliteQueries['messages'];
let pg: Queries['messages'];

beforeEach(async () => {
  await seedWorld(twins);
  pg = messageQueries(twins.pg) satisfies Queries['messages'];
});

/** Runs the same call on both modules. */
async function both<R>(call: (messages: Messages) => R | Promise<R>): Promise<[R, R]> {
  return [await call(twins.sqlite.messages), await call(pg)];
}

async function expectSame<R>(call: (messages: Messages) => R | Promise<R>): Promise<R> {
  const [fromSqlite, fromPg] = await both(call);
  expect(fromPg).toEqual(fromSqlite);
  return fromPg;
}

describe('the PostgreSQL message queries', () => {
  it('insert and find messages as SQLite does, by either handle', async () => {
    const row = message({ recipients: [ALICE, BOB], replyToHandle: 'h-0', replyToPartIndex: 2 });
    const inserted = await expectSame((m) => m.insert(row));
    expect(inserted.recipients).toEqual([ALICE, BOB]);
    await expectSame((m) => m.findByHandle(ACCOUNT, inserted.handle));
    expect(await pg.findByHandle(OTHER_ACCOUNT, inserted.handle)).toBeUndefined();
    await both((m) => m.markHandedOver(inserted.id, 'up-1', T0 + 5));
    expect((await expectSame((m) => m.findByAnyHandle('up-1')))?.handle).toBe(inserted.handle);
    await expectSame((m) => m.findByAnyHandle(inserted.handle));
    expect(await pg.findByAnyHandle('nobody')).toBeUndefined();
  });

  it('update the status, the opt-out and the hand-over', async () => {
    const row = message();
    const { id, handle } = await expectSame((m) => m.insert(row));
    await both((m) =>
      m.updateStatus(id, { status: 'DELIVERED', errorCode: null, errorMessage: null, wasDowngraded: true, dateUpdated: T0 + 9 }),
    );
    await both((m) => m.markOptedOut(id));
    await both((m) => m.markHandedOver(id, 'up-1', T0 + 8));
    const updated = await expectSame((m) => m.findByHandle(ACCOUNT, handle));
    expect(updated).toMatchObject({
      status: 'DELIVERED',
      wasDowngraded: true,
      optedOut: true,
      transportHandle: 'up-1',
      handedOverAt: T0 + 8,
    });
  });

  it('page through messages awaiting their hand-over, oldest first', async () => {
    const rows = [...Array.from({ length: 5 }, () => message()), message({ isOutbound: false, status: 'RECEIVED' })];
    for (const row of rows) await both((m) => m.insert(row));
    await both((m) => m.markHandedOver(2, 'up-2', T0));
    await both((m) => m.updateStatus(3, { status: 'ERROR', errorCode: 1, errorMessage: 'x', wasDowngraded: null, dateUpdated: T0 }));
    const first = await expectSame((m) => m.awaitingHandover(2));
    expect(first.map((row) => row.id)).toEqual([1, 4]);
    expect((await expectSame((m) => m.awaitingHandover(2, 4))).map((row) => row.id)).toEqual([5]);
  });

  it('find the senders awaiting hand-over, and page through one sender’s in the order sent', async () => {
    const other = { accountId: OTHER_ACCOUNT, lineNumber: '+15550000002', contactId: null };
    const rows = [
      message({ dateSent: T0 + 50 }),
      message(other),
      message({ dateSent: T0 + 10 }),
      message({ dateSent: T0 + 10 }),
      message({ dateSent: T0 + 60 }),
      message({ isOutbound: false, status: 'RECEIVED' }),
      message({ dateSent: T0 + 5 }),
    ];
    for (const row of rows) await both((m) => m.insert(row));
    await both((m) => m.markHandedOver(7, 'up-7', T0));
    await both((m) => m.updateStatus(5, { status: 'ERROR', errorCode: 1, errorMessage: 'x', wasDowngraded: null, dateUpdated: T0 }));
    const senders = await both((m) => m.handoverSenders());
    for (const found of senders)
      expect(new Set(found.map((sender) => `${sender.accountId} ${sender.lineNumber}`))).toEqual(
        new Set([`${ACCOUNT} +15550000001`, `${OTHER_ACCOUNT} +15550000002`]),
      );
    const mine = { accountId: ACCOUNT, lineNumber: '+15550000001' };
    const first = await expectSame((m) => m.awaitingHandoverFrom(mine, 2));
    expect(first.map((row) => row.id)).toEqual([3, 4]);
    const next = await expectSame((m) => m.awaitingHandoverFrom(mine, 2, first.at(-1)));
    expect(next.map((row) => row.id)).toEqual([1]);
    expect(await expectSame((m) => m.awaitingHandoverFrom(mine, 2, next.at(-1)))).toEqual([]);
  });

  describe('list', () => {
    beforeEach(async () => {
      const rows = [
        message({ number: ALICE }),
        message({ number: BOB, contactId: 'con_bob', isOutbound: false, status: 'RECEIVED' }),
        message({ number: '', groupId: 'grp_ab', recipients: [ALICE, BOB] }),
        message({ number: ALICE, groupId: 'grp_ab', isOutbound: false, status: 'RECEIVED' }),
        message({ number: BOB, groupId: 'grp_abc', isOutbound: false, status: 'RECEIVED' }),
        message({ number: CAROL, groupId: 'grp_abc', isOutbound: false, status: 'RECEIVED' }),
        message({ number: ALICE, status: 'DELIVERED' }),
        message({ number: ALICE, accountId: OTHER_ACCOUNT, contactId: null, lineNumber: '+15550000002' }),
        ...Array.from({ length: 5 }, () => message({ number: LONER, contactId: null })),
        // Two of the same millisecond: the id decides.
        message({ number: ALICE, dateSent: T0 + 100 }),
        message({ number: '', groupId: 'grp_abc', dateSent: T0 + 100 }),
      ];
      for (const row of rows) await both((m) => m.insert(row));
    });

    const filters: MessageListFilter[] = [
      {},
      { number: ALICE },
      { number: BOB },
      { number: CAROL },
      { number: '+19999999999' },
      { number: LONER },
      { number: ALICE, isOutbound: false },
      { number: BOB, status: 'RECEIVED', sentSince: T0 + 3 },
      { contactId: 'con_alice' },
      { groupId: 'grp_abc' },
      { status: 'DELIVERED' },
      { isOutbound: true },
      { sentSince: T0 + 6 },
    ];

    it.each(filters)('reads the same pages as SQLite for %o', async (filter) => {
      for (const [limit, offset] of [
        [50, 0],
        [2, 0],
        [2, 2],
        [3, 4],
      ] as const) {
        await expectSame((m) => m.list(ACCOUNT, filter, limit, offset));
      }
    });

    it('reads a number in more groups than it merges, as SQLite does', async () => {
      const many = Array.from({ length: 120 }, (_, i) => `grp_many_${String(i).padStart(3, '0')}`);
      await twins.seed(
        'groups',
        many.map((id) => ({
          id,
          accountId: ACCOUNT,
          memberKey: `${CAROL},${id}`,
          lineNumber: '+15550000001',
          createdAt: T0,
          updatedAt: T0,
        })),
      );
      await twins.seed(
        'group_members',
        many.map((groupId) => ({ groupId, number: CAROL, addedAt: T0 })),
      );
      for (const groupId of many.slice(0, 30)) {
        const row = message({ number: ALICE, groupId, isOutbound: false });
        await both((m) => m.insert(row));
      }
      await expectSame((m) => m.list(ACCOUNT, { number: CAROL }, 20, 3));
    });
  });

  describe('status events', () => {
    const event = (overrides: Partial<StatusEventInsert>): StatusEventInsert =>
      appliedEventOf({ id: 'evt_1', messageHandle: 'h-1', status: 'QUEUED', receivedAt: T0, ...overrides });

    it('keep one applied event per status and one event per source id', async () => {
      expect(await expectSame((m) => m.insertStatusEvent(event({})))).toBe(true);
      expect(await expectSame((m) => m.insertStatusEvent(event({ id: 'evt_2' })))).toBe(false);
      expect(await expectSame((m) => m.insertStatusEvent(event({ id: 'evt_3', applied: false, notAppliedReason: 'duplicate' })))).toBe(
        true,
      );
      expect(await expectSame((m) => m.insertStatusEvent(event({ id: 'evt_4', status: 'SENT', source: 'up', sourceEventId: 'w1' })))).toBe(
        true,
      );
      expect(
        await expectSame((m) => m.insertStatusEvent(event({ id: 'evt_5', status: 'DELIVERED', source: 'up', sourceEventId: 'w1' }))),
      ).toBe(false);
      expect(await expectSame((m) => m.sourceEventSeen('up', 'w1'))).toBe(true);
      expect(await expectSame((m) => m.sourceEventSeen('up', 'w2'))).toBe(false);
    });

    it('count a repeated report on the event with the same status, error and source, never on an implied one', async () => {
      await both((m) => m.insertStatusEvent(event({ id: 'evt_q' })));
      await both((m) => m.insertStatusEvent(event({ id: 'evt_s', status: 'SENT', source: 'up', implied: true })));
      await both((m) => m.insertStatusEvent(event({ id: 'evt_e', status: 'ERROR', source: 'up', errorCode: 10002, applied: false })));
      const same = { messageHandle: 'h-1', source: 'up', errorMessage: null };
      expect(await expectSame((m) => m.countRepeat({ ...same, status: 'SENT', errorCode: null }))).toBe(false);
      expect(await expectSame((m) => m.countRepeat({ ...same, status: 'ERROR', errorCode: 10001 }))).toBe(false);
      expect(await expectSame((m) => m.countRepeat({ ...same, status: 'ERROR', errorCode: 10002 }))).toBe(true);
      expect(await expectSame((m) => m.countRepeat({ ...same, status: 'ERROR', errorCode: 10002 }))).toBe(true);
      expect(await expectSame((m) => m.countRepeat({ ...same, source: 'api', status: 'QUEUED', errorCode: null }))).toBe(true);
      const history = await expectSame((m) => m.history('h-1'));
      expect(history.map((row) => [row.id, row.repeats])).toEqual([
        ['evt_q', 1],
        ['evt_s', 0],
        ['evt_e', 2],
      ]);
    });

    it('give the history in arrival order, an implied step before the step that implied it', async () => {
      // Ids are time-ordered UUIDs, random within a millisecond: here they sort against arrival.
      const arrivals = [
        event({ id: 'evt_z', status: 'QUEUED', receivedAt: T0 }),
        event({ id: 'evt_y', status: 'SENT', implied: true, receivedAt: T0 + 1 }),
        event({ id: 'evt_x', status: 'DELIVERED', receivedAt: T0 + 1 }),
        event({ id: 'evt_w', status: 'SENT', applied: false, notAppliedReason: 'stale', receivedAt: T0 + 1 }),
        event({ id: 'evt_v', status: 'READ', receivedAt: T0 + 2 }),
        event({ id: 'evt_other', messageHandle: 'h-2', receivedAt: T0 }),
      ];
      for (const row of arrivals) await both((m) => m.insertStatusEvent(row));
      const history = await expectSame((m) => m.history('h-1'));
      expect(history.map((row) => row.id)).toEqual(['evt_z', 'evt_y', 'evt_x', 'evt_w', 'evt_v']);
    });
  });
});
