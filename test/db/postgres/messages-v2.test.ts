import { drizzle } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import { beforeEach, describe, expect, it } from 'vitest';
import { groupQueries } from '../../../src/db/postgres/queries/groups.ts';
import { messageQueries } from '../../../src/db/postgres/queries/messages.ts';
import { messageV2Queries } from '../../../src/db/postgres/queries/messages-v2.ts';
import * as schema from '../../../src/db/postgres/schema.ts';
import type { MessageV2Filter, MessageV2Order } from '../../../src/db/sqlite/queries/messages-v2.ts';
import type { SqliteQueries } from '../../../src/db/sqlite/queries.ts';
import type { Queries } from '../../../src/db/store.ts';
import { ACCOUNT, ALICE, BOB, message, OTHER_ACCOUNT, seedWorld, T0, useTwins } from '../../helpers/postgres-twins.ts';

const twins = useTwins();
/** The account as the listings' JSON names it. */
const FACTS = { email: 'owner@example.com', plan: 'sapphire' };

type MessagesV2 = Queries['messagesV2'] | SqliteQueries['messagesV2'];
let pg: Queries['messagesV2'];

async function expectSame<R>(call: (messages: MessagesV2) => R | Promise<R>): Promise<R> {
  const fromSqlite = await call(twins.sqlite.messagesV2);
  const fromPg = await call(pg);
  expect(fromPg).toEqual(fromSqlite);
  return fromPg;
}

async function insert(...rows: ReturnType<typeof message>[]): Promise<void> {
  for (const row of rows) {
    twins.sqlite.messages.insert(row);
    await messageQueries(twins.pg).insert(row);
  }
}

beforeEach(async () => {
  await seedWorld(twins);
  pg = messageV2Queries(twins.pg) satisfies Queries['messagesV2'];
  await insert(
    message({ number: ALICE }),
    message({ number: BOB, contactId: 'con_bob', isOutbound: false, status: 'RECEIVED' }),
    message({ number: '', groupId: 'grp_ab', recipients: [ALICE, BOB] }),
    message({ number: ALICE, groupId: 'grp_ab', isOutbound: false, status: 'RECEIVED', dateUpdated: T0 + 50 }),
    message({ number: ALICE, status: 'DELIVERED', wasDowngraded: true, lineNumber: '+15550000009' }),
    message({ number: ALICE, accountId: OTHER_ACCOUNT, contactId: null, lineNumber: '+15550000002' }),
    message({ number: BOB, dateSent: T0 + 100 }),
    message({ number: ALICE, dateSent: T0 + 100 }),
  );
});

describe('the PostgreSQL v2 message listing', () => {
  const filters: MessageV2Filter[] = [
    {},
    { number: ALICE },
    { groupId: 'grp_ab' },
    { isOutbound: false },
    { messageType: 'group' },
    { status: 'DELIVERED' },
    { downgraded: true },
    { downgraded: false },
    { lineNumber: '+15550000009' },
    { sentFrom: T0 + 3, sentTo: T0 + 100 },
    { updatedFrom: T0 + 5, updatedTo: T0 + 60 },
  ];
  const orders: MessageV2Order[] = [
    { by: 'sent', direction: 'desc' },
    { by: 'sent', direction: 'asc' },
    { by: 'updated', direction: 'desc' },
    { by: 'updated', direction: 'asc' },
  ];

  it.each(filters)('reads the same pages and totals as SQLite for %o', async (filter) => {
    for (const order of orders) {
      await expectSame((m) => m.listJson(ACCOUNT, filter, order, 50, 0, FACTS));
      await expectSame((m) => m.listJson(ACCOUNT, filter, order, 2, 1, FACTS));
    }
    await expectSame((m) => m.total(ACCOUNT, filter, T0));
  });

  it("reads each row's group name with the page, as SQLite does", async () => {
    twins.sqlite.groups.rename('grp_ab', 'Climbing', T0 + 1);
    await groupQueries(twins.pg).rename('grp_ab', 'Climbing', T0 + 1);
    const page = (await expectSame((m) => m.listJson(ACCOUNT, {}, { by: 'sent', direction: 'desc' }, 50, 0, FACTS))).map(
      (json) => JSON.parse(json) as { group_id: string | null; group_display_name: string | null },
    );
    expect(page.filter((row) => row.group_id === 'grp_ab').map((row) => row.group_display_name)).toEqual(['Climbing', 'Climbing']);
    expect(page.filter((row) => row.group_id === null).every((row) => row.group_display_name === null)).toBe(true);
  });

  it('adds the rows stored since to a kept total, and counts afresh after a while', async () => {
    expect(await expectSame((m) => m.total(ACCOUNT, { number: ALICE }, T0))).toBe(4);
    await insert(message({ number: ALICE }), message({ number: BOB }));
    expect(await expectSame((m) => m.total(ACCOUNT, { number: ALICE }, T0 + 1_000))).toBe(5);
    expect(await expectSame((m) => m.total(ACCOUNT, { status: 'QUEUED' }, T0 + 1_000))).toBe(6);
    expect(await expectSame((m) => m.total(ACCOUNT, { number: ALICE }, T0 + 120_000))).toBe(5);
  });

  it('adds the rows stored since once when requests ask for a total at once', async () => {
    expect(await pg.total(ACCOUNT, { number: ALICE }, T0)).toBe(4);
    await insert(message({ number: ALICE }), message({ number: ALICE }));
    const totals = await Promise.all([1, 2, 3, 4].map(() => pg.total(ACCOUNT, { number: ALICE }, T0 + 1_000)));
    expect(totals).toEqual([6, 6, 6, 6]);
    expect(await pg.total(ACCOUNT, { number: ALICE }, T0 + 2_000)).toBe(6);
  });

  it('counts a total afresh once for requests that ask for it at once', async () => {
    const statements: string[] = [];
    const client = postgres(twins.url, { max: 4, onnotice: () => {}, debug: (_connection, query) => statements.push(query) });
    try {
      const listing = messageV2Queries(drizzle({ client, schema, casing: 'snake_case' }));
      const totals = await Promise.all([1, 2, 3, 4].map(() => listing.total(ACCOUNT, { number: ALICE }, T0)));
      expect(totals).toEqual([4, 4, 4, 4]);
      expect(statements.filter((query) => query.startsWith('select count(*)'))).toHaveLength(1);
    } finally {
      await client.end();
    }
  });
});
