import { beforeEach, describe, expect, it } from 'vitest';
import { inboxQueries } from '../../../src/db/postgres/queries/inbox.ts';
import type { PruneBatch } from '../../../src/db/prune-batch.ts';
import type { InboxSessionRow } from '../../../src/db/sqlite/queries/inbox.ts';
import type { SqliteQueries } from '../../../src/db/sqlite/queries.ts';
import type { Queries } from '../../../src/db/store.ts';
import { ACCOUNT, OTHER_ACCOUNT, seedWorld, statusEvent, T0, useTwins } from '../../helpers/postgres-twins.ts';

const twins = useTwins();

type Inbox = Queries['inbox'] | SqliteQueries['inbox'];
let pg: Queries['inbox'];

async function both<R>(call: (inbox: Inbox) => R | Promise<R>): Promise<[R, R]> {
  return [await call(twins.sqlite.inbox), await call(pg)];
}

async function expectSame<R>(call: (inbox: Inbox) => R | Promise<R>): Promise<R> {
  const [fromSqlite, fromPg] = await both(call);
  expect(fromPg).toEqual(fromSqlite);
  return fromPg;
}

beforeEach(async () => {
  await seedWorld(twins);
  pg = inboxQueries(twins.pg) satisfies Queries['inbox'];
});

const session = (tokenHash: string, accountId: string, expiresAt: number): InboxSessionRow => ({
  tokenHash,
  accountId,
  apiSecretHash: 'hash',
  createdAt: expiresAt - 1_000,
  expiresAt,
});

/** Every round of a prune, as the retention pass walks it. */
async function pruneAll(inbox: Inbox, now: number, limit: number): Promise<number[]> {
  const rounds: number[] = [];
  for (let after: number | null = 0; after !== null; ) {
    const batch: PruneBatch = await inbox.pruneExpiredSessions(now, after, limit);
    rounds.push(batch.pruned);
    after = batch.resumeAfter;
  }
  return rounds;
}

describe('the PostgreSQL inbox queries', () => {
  it('open, find, close and expire sessions as SQLite does', async () => {
    for (const row of [session('t1', ACCOUNT, T0 + 10), session('t2', ACCOUNT, T0 + 20), session('t3', OTHER_ACCOUNT, T0 + 10)]) {
      await both((inbox) => inbox.insertSession(row));
    }
    expect(await expectSame((inbox) => inbox.findSession('t1'))).toEqual(session('t1', ACCOUNT, T0 + 10));
    await both((inbox) => inbox.deleteSession('t1'));
    expect(await expectSame((inbox) => inbox.findSession('t1'))).toBeUndefined();
    await both((inbox) => inbox.deleteExpiredSessions(ACCOUNT, T0 + 20));
    await expectSame((inbox) => inbox.findSession('t2'));
    await both((inbox) => inbox.deleteExpiredSessions(ACCOUNT, T0 + 21));
    expect(await expectSame((inbox) => inbox.findSession('t2'))).toBeUndefined();
    expect(await expectSame((inbox) => inbox.findSession('t3'))).toBeDefined();
  });

  it('prune the expired sessions of every account in batches', async () => {
    for (let i = 0; i < 7; i += 1) {
      const row = session(`t${i}`, i % 2 ? ACCOUNT : OTHER_ACCOUNT, T0 + i);
      await both((inbox) => inbox.insertSession(row));
    }
    const [fromSqlite, fromPg] = await both((inbox) => pruneAll(inbox, T0 + 4, 2));
    expect(fromPg.reduce((a, b) => a + b)).toBe(5);
    expect(fromSqlite.reduce((a, b) => a + b)).toBe(5);
    expect(await expectSame((inbox) => inbox.findSession('t4'))).toBeUndefined();
    expect(await expectSame((inbox) => inbox.findSession('t5'))).toBeDefined();
  });

  it('read the histories of several messages, each in arrival order', async () => {
    await twins.seed('status_events', [
      statusEvent({ id: 'evt_9', messageHandle: 'b', receivedAt: T0 }),
      statusEvent({ id: 'evt_8', messageHandle: 'a', status: 'SENT', implied: true, receivedAt: T0 + 1 }),
      statusEvent({ id: 'evt_7', messageHandle: 'a', status: 'DELIVERED', receivedAt: T0 + 1 }),
      statusEvent({ id: 'evt_6', messageHandle: 'a', receivedAt: T0 }),
      statusEvent({ id: 'evt_5', messageHandle: 'c', receivedAt: T0 }),
    ]);
    const histories = await expectSame((inbox) => inbox.histories(['b', 'a']));
    expect(histories.map((row) => row.id)).toEqual(['evt_6', 'evt_8', 'evt_7', 'evt_9']);
    expect(await expectSame((inbox) => inbox.histories([]))).toEqual([]);
  });
});
