import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PgDb } from '../../../src/db/postgres/db.ts';
import { accountQueries } from '../../../src/db/postgres/queries/accounts.ts';
import { transactionalStore } from '../../../src/db/postgres/transactional-store.ts';
import type { BatchOutcome } from '../../../src/db/store.ts';
import { freshPostgresDatabase, type TestPostgresDatabase } from '../../helpers/postgres-database.ts';
import { accountRow } from '../../helpers/postgres-twins.ts';

/** A module with a set-based twin, as the hot paths' queries have: it says how it was called. */
function echoModule(calls: string[]) {
  return () => ({
    async echo(value: number): Promise<number> {
      calls.push(`echo ${value}`);
      return value * 10;
    },
    async echoMany(list: [number][]): Promise<number[]> {
      calls.push(`echoMany ${list.map(([value]) => value).join(',')}`);
      return list.map(([value]) => value * 10);
    },
  });
}

function storeWith(db: PgDb, calls: string[] = []) {
  return transactionalStore({ accounts: accountQueries, echo: echoModule(calls) }, db);
}

const ids = async (store: ReturnType<typeof storeWith>) => (await store.accounts.list()).map((row) => row.id).sort();
const values = (outcomes: BatchOutcome[]) => outcomes.map((outcome) => (outcome.ok ? outcome.value : `failed: ${String(outcome.error)}`));

describe('a batch on PostgreSQL', () => {
  let database: TestPostgresDatabase;
  beforeEach(async () => {
    database = await freshPostgresDatabase();
  });
  afterEach(() => database.close());

  it('runs its works together, merging the calls they make in one turn into one call of the twin', async () => {
    const calls: string[] = [];
    const store = storeWith(database.db, calls);
    const outcomes = await store.batch(
      [1, 2, 3].map((n) => async (tx: typeof store) => {
        const echoed = await tx.echo.echo(n);
        await tx.accounts.insertAccount(accountRow(`a${n}`, n));
        return echoed;
      }),
    );
    expect(values(outcomes)).toEqual([10, 20, 30]);
    expect(calls).toEqual(['echoMany 1,2,3']);
    expect(await ids(store)).toEqual(['a1', 'a2', 'a3']);
  });

  it('answers a work that failed with its own error, storing nothing of it and all of its batch-mates', async () => {
    const calls: string[] = [];
    const store = storeWith(database.db, calls);
    const outcomes = await store.batch([
      async (tx) => tx.accounts.insertAccount(accountRow('a', 1)).then(() => 'a'),
      async (tx) => {
        await tx.accounts.insertAccount(accountRow('b', 2));
        throw new Error('b is refused');
      },
      async (tx) => tx.accounts.insertAccount(accountRow('c', 3)).then(() => 'c'),
    ]);
    expect(values(outcomes)).toEqual(['a', 'failed: Error: b is refused', 'c']);
    expect(await ids(store)).toEqual(['a', 'c']);
  });

  it('rolls back a nested transaction that failed and only it, as a savepoint would', async () => {
    const store = storeWith(database.db);
    const outcomes = await store.batch([
      async (tx) => {
        await tx.accounts.insertAccount(accountRow('a', 1));
        await tx
          .transaction(async (inner) => {
            await inner.accounts.insertAccount(accountRow('b', 2));
            throw new Error('inner');
          })
          .catch(() => undefined);
        await tx.accounts.insertAccount(accountRow('c', 3));
        return 'first';
      },
      async (tx) => tx.accounts.insertAccount(accountRow('d', 4)).then(() => 'second'),
    ]);
    expect(values(outcomes)).toEqual(['first', 'second']);
    expect(await ids(store)).toEqual(['a', 'c', 'd']);
  });

  it('stores nothing of a batch whose works collide in one statement, then each of them alone', async () => {
    const store = storeWith(database.db);
    // Both insert the same account: together they fail on its primary key; alone, the second fails.
    const outcomes = await store.batch([
      async (tx) => tx.accounts.insertAccount(accountRow('same', 1)).then(() => 'first'),
      async (tx) => tx.accounts.insertAccount(accountRow('same', 1)).then(() => 'second'),
      async (tx) => tx.accounts.insertAccount(accountRow('other', 2)).then(() => 'third'),
    ]);
    expect(outcomes.map((outcome) => outcome.ok)).toEqual([true, false, true]);
    expect(await ids(store)).toEqual(['other', 'same']);
  });
});
