import { beforeEach, describe, expect, it } from 'vitest';
import { orphanQueries } from '../../../src/db/postgres/queries/orphans.ts';
import { unroutedQueries } from '../../../src/db/postgres/queries/unrouted.ts';
import type { PruneBatch } from '../../../src/db/prune-batch.ts';
import type { OrphanStatusEventRow } from '../../../src/db/sqlite/queries/orphans.ts';
import type { Queries } from '../../../src/db/store.ts';
import { T0, unroutedRow, useTwins } from '../../helpers/postgres-twins.ts';

const twins = useTwins();

let orphans: Queries['orphans'];
let unrouted: Queries['unrouted'];

beforeEach(async () => {
  orphans = orphanQueries(twins.pg) satisfies Queries['orphans'];
  unrouted = unroutedQueries(twins.pg) satisfies Queries['unrouted'];
});

/** Every batch of a prune, as the retention pass walks it. */
async function pruneAll(prune: (after: number, limit: number) => PruneBatch | Promise<PruneBatch>, limit: number): Promise<PruneBatch[]> {
  const batches: PruneBatch[] = [];
  for (let after: number | null = 0; after !== null; ) {
    const batch = await prune(after, limit);
    batches.push(batch);
    after = batch.resumeAfter;
  }
  return batches;
}

const orphan = (transportHandle: string, receivedAt: number, sourceEventId: string | null = null): Omit<OrphanStatusEventRow, 'id'> => ({
  transportHandle,
  status: 'DELIVERED',
  errorCode: null,
  errorMessage: null,
  wasDowngraded: null,
  source: 'up',
  sourceEventId,
  receivedAt,
});

describe('the PostgreSQL orphan status events', () => {
  it('keep each reported event once, and hand a handle its events once, in arrival order', async () => {
    const rows = [orphan('up-1', T0, 'w1'), orphan('up-2', T0 + 1), orphan('up-1', T0 + 2), orphan('up-1', T0 + 3, 'w1')];
    const sqliteInserted = rows.map((row) => twins.sqlite.orphans.insert(row));
    const pgInserted: boolean[] = [];
    for (const row of rows) pgInserted.push(await orphans.insert(row));
    expect(pgInserted).toEqual(sqliteInserted);
    expect(pgInserted).toEqual([true, true, true, false]);
    const taken = await orphans.take('up-1');
    expect(taken).toEqual(twins.sqlite.orphans.take('up-1'));
    expect(taken.map((row) => row.receivedAt)).toEqual([T0, T0 + 2]);
    expect(await orphans.take('up-1')).toEqual([]);
  });

  it('hand each event to one of two processes taking the same handle at once', async () => {
    for (let i = 0; i < 20; i += 1) await orphans.insert(orphan('up-1', T0 + i));
    const [one, other] = await Promise.all([orphans.take('up-1'), orphans.take('up-1')]);
    expect(one.length + other.length).toBe(20);
  });

  it('prune the oldest, batch by batch, as SQLite does', async () => {
    for (let i = 0; i < 7; i += 1) {
      const row = orphan(`up-${i}`, T0 + i);
      twins.sqlite.orphans.insert(row);
      await orphans.insert(row);
    }
    const fromPg = await pruneAll((after, limit) => orphans.pruneReceivedBy(T0 + 4, after, limit), 2);
    expect(fromPg).toEqual(await pruneAll((after, limit) => twins.sqlite.orphans.pruneReceivedBy(T0 + 4, after, limit), 2));
    expect(fromPg.map((batch) => batch.pruned)).toEqual([2, 2, 1]);
    expect(await orphans.take('up-4')).toEqual([]);
    expect(await orphans.take('up-5')).toHaveLength(1);
  });
});

describe('the PostgreSQL unrouted inbound messages', () => {
  it('keep each transport message once, count them, list the latest and prune the oldest as SQLite does', async () => {
    const rows = [
      unroutedRow({ transportHandle: 'up-1', receivedAt: T0 }),
      unroutedRow({ transportHandle: 'up-1', receivedAt: T0 + 1 }),
      unroutedRow({ receivedAt: T0 + 2, participants: ['+1', '+2'], transportGroupId: 'tg' }),
      unroutedRow({ receivedAt: T0 + 3 }),
    ];
    const sqliteInserted = rows.map((row) => twins.sqlite.unrouted.insert(row as never));
    const pgInserted: boolean[] = [];
    for (const row of rows) pgInserted.push(await unrouted.insert(row as never));
    expect(pgInserted).toEqual(sqliteInserted);
    expect(await unrouted.count()).toBe(twins.sqlite.unrouted.count());
    expect(await unrouted.latest(2)).toEqual(twins.sqlite.unrouted.latest(2));
    const fromPg = await pruneAll((after, limit) => unrouted.pruneReceivedBy(T0 + 2, after, limit), 1);
    expect(fromPg).toEqual(await pruneAll((after, limit) => twins.sqlite.unrouted.pruneReceivedBy(T0 + 2, after, limit), 1));
    expect(await unrouted.count()).toBe(1);
  });
});
