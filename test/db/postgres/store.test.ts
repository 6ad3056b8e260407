import { sql } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PgDb } from '../../../src/db/postgres/db.ts';
import { accountQueries } from '../../../src/db/postgres/queries/accounts.ts';
import { contactQueries } from '../../../src/db/postgres/queries/contacts.ts';
import { MAX_ATTEMPTS, transactionalStore } from '../../../src/db/postgres/transactional-store.ts';
import { ALICE } from '../../helpers/fixtures.ts';
import { freshPostgresDatabase, type TestPostgresDatabase } from '../../helpers/postgres-database.ts';
import { accountRow } from '../../helpers/postgres-twins.ts';

/** What createPostgresStore does, with the modules of this branch: its transactions and lazy modules. */
function storeWith(db: PgDb, built: string[] = []) {
  const counted =
    <M>(name: string, factory: (db: PgDb) => M) =>
    (on: PgDb) => {
      built.push(name);
      return factory(on);
    };
  return transactionalStore({ accounts: counted('accounts', accountQueries), contacts: counted('contacts', contactQueries) }, db);
}

const LINE = '+14155559001';

const raise = (db: PgDb, code: string) => db.execute(sql.raw(`do $$ begin raise exception 'collided' using errcode = '${code}'; end $$`));

describe('the PostgreSQL store', () => {
  let database: TestPostgresDatabase;
  beforeEach(async () => {
    database = await freshPostgresDatabase();
  });
  afterEach(() => database.close());

  it('commits the work’s writes with its answer, and rolls all of them back when it fails', async () => {
    const store = storeWith(database.db);
    const answer = store.transaction(async (tx) => {
      await tx.accounts.insertAccount(accountRow('a', 1));
      return 'done';
    });
    expect(await answer).toBe('done');
    const failed = store.transaction(async (tx) => {
      await tx.accounts.insertAccount(accountRow('b', 2));
      throw new Error('no');
    });
    await expect(failed).rejects.toThrow('no');
    expect((await store.accounts.list()).map((row) => row.id)).toEqual(['a']);
  });

  it('nests a transaction as a savepoint: the failing inner work rolls back alone', async () => {
    const store = storeWith(database.db);
    await store.transaction(async (tx) => {
      await tx.accounts.insertAccount(accountRow('a', 1));
      await expect(
        tx.transaction(async (inner) => {
          await inner.accounts.insertAccount(accountRow('b', 2));
          throw new Error('inner');
        }),
      ).rejects.toThrow('inner');
      await tx.transaction((inner) => inner.accounts.insertAccount(accountRow('c', 3)));
    });
    expect((await store.accounts.list()).map((row) => row.id)).toEqual(['a', 'c']);
  });

  it('runs again a transaction that lost a race (serialization, deadlock, unique violation), a few times at most', async () => {
    const store = storeWith(database.db);
    let attempts = 0;
    const answer = await store.transaction(async (tx) => {
      await tx.accounts.insertAccount(accountRow(`a${++attempts}`, attempts));
      if (attempts === 1) await raise(database.db, '40001');
      if (attempts === 2) await raise(database.db, '40P01');
      if (attempts === 3) await raise(database.db, '23505');
      return attempts;
    });
    expect(answer).toBe(4);
    expect((await store.accounts.list()).map((row) => row.id)).toEqual(['a4']);

    const runsUntilGivenUp = async (code: string) => {
      let runs = 0;
      const failing = store.transaction(async () => {
        runs++;
        await raise(database.db, code);
      });
      await expect(failing).rejects.toMatchObject({ cause: { code } });
      return runs;
    };
    expect(await runsUntilGivenUp('40001')).toBe(MAX_ATTEMPTS);
    expect(await runsUntilGivenUp('23503')).toBe(1);
  });

  it('lets two first messages to one person pin them once, both succeeding', async () => {
    const store = storeWith(database.db);
    await store.accounts.insertAccount(accountRow('a', 1));
    await store.accounts.insertServiceNumber('a', LINE, 2);
    // What lineForEndUser does: check, then pin; the first holds its transaction open so the second collides.
    const firstMessage = () =>
      store.transaction(async (tx) => {
        const pinned = await tx.accounts.findPinnedLine('a', ALICE);
        if (pinned) return 'found';
        await tx.accounts.pinEndUser('a', ALICE, LINE, 3);
        await new Promise((resolve) => setTimeout(resolve, 100));
        return 'pinned';
      });
    expect((await Promise.all([firstMessage(), firstMessage()])).sort()).toEqual(['found', 'pinned']);
    expect(await store.accounts.lineUsers(LINE)).toEqual({ pinnedEndUsers: 1, groups: 0 });
  });

  it('runs transactions of different callers at once, each on its own connection', async () => {
    const store = storeWith(database.db);
    let secondCommitted!: () => void;
    const second = new Promise<void>((resolve) => {
      secondCommitted = resolve;
    });
    const first = store.transaction(async (tx) => {
      await tx.accounts.insertAccount(accountRow('a', 1));
      await second;
    });
    await store.transaction((tx) => tx.accounts.insertAccount(accountRow('b', 2)));
    secondCommitted();
    await first;
    expect(await store.accounts.count()).toBe(2);
  });

  it('builds a transaction’s query modules only when its work uses them', async () => {
    const built: string[] = [];
    const store = storeWith(database.db, built);
    await store.transaction((tx) => tx.accounts.count());
    await store.transaction(async (tx) => [await tx.accounts.count(), await tx.accounts.count()]);
    expect(built).toEqual(['accounts', 'accounts']);
  });
});
