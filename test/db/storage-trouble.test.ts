import { sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { migrateDatabase, openDatabase } from '../../src/db/sqlite/connection.ts';
import { storageTrouble } from '../../src/db/storage-trouble.ts';
import { freshPostgresDatabase, type TestPostgresDatabase } from '../helpers/postgres-database.ts';

// Errors caught from the real drivers: what the HTTP layer answers 503 for, and what it must not.

async function caught(work: () => Promise<unknown>): Promise<unknown> {
  try {
    await work();
  } catch (error) {
    return error;
  }
  throw new Error('expected the work to fail');
}

describe('storage trouble on PostgreSQL', () => {
  const opened: TestPostgresDatabase[] = [];
  afterAll(async () => {
    await Promise.all(opened.map((database) => database.close().catch(() => {})));
  });

  it('calls a statement timeout busy, a closed pool unavailable, and a failing query nothing', async () => {
    const database = await freshPostgresDatabase();
    opened.push(database);
    const timedOut = await caught(() =>
      database.db.transaction(async (tx) => {
        await tx.execute(sql`set local statement_timeout = 10`);
        await tx.execute(sql`select pg_sleep(1)`);
      }),
    );
    expect(storageTrouble(timedOut)).toBe('busy');
    const division = await caught(() => database.db.execute(sql`select 1 / 0`));
    expect(storageTrouble(division)).toBeUndefined();
    await database.close();
    expect(storageTrouble(await caught(() => database.db.execute(sql`select 1`)))).toBe('unavailable');
  });
});

it('does not take a network error of an outbound request for the database being down', async () => {
  const refused = await caught(() => fetch('http://127.0.0.1:1/'));
  expect(storageTrouble(refused)).toBeUndefined();
  const connectionRefused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
  expect(storageTrouble(connectionRefused)).toBeUndefined();
  expect(storageTrouble(new TypeError('fetch failed', { cause: connectionRefused }))).toBeUndefined();
});

describe('storage trouble on SQLite', () => {
  it('calls a read-only file unwritable, and a constraint nothing', async () => {
    const db = openDatabase(':memory:');
    migrateDatabase(db);
    expect(storageTrouble(await caught(async () => db.$client.exec('insert into accounts (id) values (null)')))).toBeUndefined();
    db.$client.pragma('query_only = true');
    expect(storageTrouble(await caught(async () => db.$client.exec('create table t (x)')))).toBe('unwritable');
  });
});
