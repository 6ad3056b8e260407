import { beforeEach, describe, expect, it } from 'vitest';
import { conversationQueries } from '../../../src/db/postgres/queries/conversations.ts';
import { messageQueries } from '../../../src/db/postgres/queries/messages.ts';
import type { SqliteQueries } from '../../../src/db/sqlite/queries.ts';
import type { Queries } from '../../../src/db/store.ts';
import { ACCOUNT, ALICE, BOB, CAROL, message, OTHER_ACCOUNT, seedWorld, T0, useTwins } from '../../helpers/postgres-twins.ts';

const twins = useTwins();

type Conversations = Queries['conversations'] | SqliteQueries['conversations'];
let pg: Queries['conversations'];

async function both<R>(call: (conversations: Conversations) => R | Promise<R>): Promise<[R, R]> {
  return [await call(twins.sqlite.conversations), await call(pg)];
}

async function expectSame<R>(call: (conversations: Conversations) => R | Promise<R>): Promise<R> {
  const [fromSqlite, fromPg] = await both(call);
  expect(fromPg).toEqual(fromSqlite);
  return fromPg;
}

beforeEach(async () => {
  await seedWorld(twins);
  pg = conversationQueries(twins.pg) satisfies Queries['conversations'];
  await twins.seed('contacts', [
    {
      id: 'con_carol',
      accountId: ACCOUNT,
      phone: CAROL,
      firstName: 'Carol',
      lastName: 'C',
      createdAt: T0,
      lastMessageAt: T0 + 5,
      previewText: 'hi',
    },
    { id: 'con_dan', accountId: ACCOUNT, phone: '+14155550199', firstName: 'Dan', lastName: 'D', createdAt: T0, lastMessageAt: T0 + 5 },
    { id: 'con_other', accountId: OTHER_ACCOUNT, phone: ALICE, firstName: 'O', lastName: 'O', createdAt: T0, lastMessageAt: T0 + 9 },
  ]);
  const rows = [
    message({ number: ALICE, isOutbound: false, status: 'RECEIVED', dateSent: T0 + 1 }),
    message({ number: ALICE, isOutbound: false, status: 'RECEIVED', dateSent: T0 + 2 }),
    message({ number: BOB, contactId: 'con_bob', dateSent: T0 + 3 }),
    message({ number: ALICE, groupId: 'grp_ab', isOutbound: false, status: 'RECEIVED', dateSent: T0 + 4, mediaUrl: 'https://x/y.png' }),
    message({ number: '', groupId: 'grp_ab', dateSent: T0 + 6 }),
  ];
  for (const row of rows) {
    twins.sqlite.messages.insert(row);
    await messageQueries(twins.pg).insert(row);
  }
  // The contacts' summaries, as the services keep them.
  for (const [id, at] of [
    ['con_alice', T0 + 2],
    ['con_bob', T0 + 3],
  ] as const) {
    twins.sqliteDb.$client.prepare('update contacts set last_message_at = ? where id = ?').run(at, id);
    await twins.pg.execute(`update contacts set last_message_at = ${at} where id = '${id}'`);
  }
});

describe('the PostgreSQL conversation list', () => {
  it('lists the same conversations as SQLite, unread first, and moves read markers forward only', async () => {
    for (const limit of [50, 2]) await expectSame((c) => c.list(ACCOUNT, limit));
    await both((c) => c.markRead(ACCOUNT, 'contact', 'con_alice', { at: T0 + 1, messageId: 1 }));
    const afterOne = await expectSame((c) => c.list(ACCOUNT, 50));
    expect(afterOne.find((row) => row.id === 'con_alice')?.unread).toBe(1);
    await both((c) => c.markRead(ACCOUNT, 'contact', 'con_alice', { at: T0 + 2, messageId: 2 }));
    await both((c) => c.markRead(ACCOUNT, 'contact', 'con_alice', { at: T0 + 1, messageId: 1 }));
    await both((c) => c.markRead(ACCOUNT, 'group', 'grp_ab', { at: T0 + 4, messageId: 4 }));
    const read = await expectSame((c) => c.list(ACCOUNT, 50));
    expect(read.every((row) => row.unread === 0)).toBe(true);
    await expectSame((c) => c.list(OTHER_ACCOUNT, 50));
  });
});
