import { beforeEach, describe, expect, it } from 'vitest';
import { idempotencyQueries } from '../../../src/db/postgres/queries/idempotency.ts';
import type { IdempotencyRow } from '../../../src/db/rows.ts';
import type { Queries } from '../../../src/db/store.ts';
import { ACCOUNT, answering, OTHER_ACCOUNT, seedAccounts, useTwins } from '../../helpers/postgres-twins.ts';

function key(key: string, createdAt: number, accountId = ACCOUNT): IdempotencyRow {
  return { accountId, key, requestHash: `hash-${key}-${createdAt}`, responseStatus: 202, responseBody: `{"key":"${key}"}`, createdAt };
}

/** The pruning batches until the walk is over, as the retention pass runs them. */
async function pruneAll(keys: Queries['idempotency'], until: number, limit: number): Promise<number[]> {
  const pruned: number[] = [];
  for (let after: number | null = 0; after !== null; ) {
    const batch = await keys.pruneCreatedBy(until, after, limit);
    pruned.push(batch.pruned);
    after = batch.resumeAfter;
  }
  return pruned;
}

async function story(keys: Queries['idempotency']): Promise<unknown[]> {
  await keys.save(key('a', 100));
  await keys.save(key('b', 200));
  await keys.save(key('a', 150, OTHER_ACCOUNT));
  await keys.save(key('c', 300));
  await keys.save(key('a', 400)); // an expired key used again: replaced, and now the newest
  const seen: unknown[] = [
    await keys.findForUpdate(ACCOUNT, 'a'),
    await keys.findForUpdate(ACCOUNT, 'nope'),
    await keys.findForUpdate(OTHER_ACCOUNT, 'a'),
  ];
  seen.push(await keys.pruneCreatedBy(0, 0, 10));
  const pruned = await pruneAll(keys, 250, 2);
  // The batches differ (SQLite walks rowids, PostgreSQL deletes what is expired), not what they removed.
  seen.push(pruned.reduce((sum, count) => sum + count, 0));
  seen.push(
    await keys.findForUpdate(ACCOUNT, 'a'),
    await keys.findForUpdate(ACCOUNT, 'b'),
    await keys.findForUpdate(OTHER_ACCOUNT, 'a'),
    await keys.findForUpdate(ACCOUNT, 'c'),
  );
  return seen;
}

describe('the PostgreSQL idempotency keys', () => {
  const twins = useTwins();
  beforeEach(() => seedAccounts(twins));

  it('answers every call as the SQLite keys do', async () => {
    const typed: Queries['idempotency'] = idempotencyQueries(twins.pg);
    const expected = await story(answering(twins.sqlite.idempotency));
    expect(await story(typed)).toEqual(expected);
  });

  it('holds a second transaction reading the same key until the first ends, then shows it the saved answer', async () => {
    const db = twins.connect(2);
    let firstHoldsTheKey!: () => void;
    const held = new Promise<void>((resolve) => {
      firstHoldsTheKey = resolve;
    });
    let endFirst!: () => void;
    const firstMayEnd = new Promise<void>((resolve) => {
      endFirst = resolve;
    });
    const first = db.transaction(async (tx) => {
      const keys = idempotencyQueries(tx);
      expect(await keys.findForUpdate(ACCOUNT, 'k')).toBeUndefined();
      firstHoldsTheKey();
      await firstMayEnd;
      await keys.save(key('k', 100));
    });
    await held;
    let seenBySecond: IdempotencyRow | undefined | 'still waiting' = 'still waiting';
    const second = db.transaction(async (tx) => {
      seenBySecond = await idempotencyQueries(tx).findForUpdate(ACCOUNT, 'k');
    });
    // Long enough for an unlocked read to have answered (it takes a few milliseconds).
    await new Promise((resolve) => setTimeout(resolve, 300));
    const seenWhileHeld = seenBySecond;
    endFirst();
    await Promise.all([first, second]);
    expect(seenWhileHeld).toBe('still waiting');
    expect(seenBySecond).toEqual(key('k', 100));
  });

  it('prunes in batches of at most the limit, until none is left', async () => {
    const keys = idempotencyQueries(twins.pg);
    for (let index = 0; index < 5; index++) await keys.save(key(`k${index}`, index));
    expect(await pruneAll(keys, 10, 2)).toEqual([2, 2, 1]);
    expect(await pruneAll(keys, 10, 2)).toEqual([0]);
  });
});
