import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { eq, sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { migratePostgres, openPostgres } from '../../../src/db/postgres/connection.ts';
import type { PgDb } from '../../../src/db/postgres/db.ts';
import { accounts } from '../../../src/db/postgres/schema.ts';
import { StartupError } from '../../../src/startup-error.ts';
import { freePort } from '../../helpers/live.ts';
import { emptyPostgresDatabase, freshPostgresDatabase, postgresUrl, type TestPostgresDatabase } from '../../helpers/postgres-database.ts';

/** The password of the tests' server (test/helpers/postgres.ts), which no error may repeat. */
const PASSWORD = 'textrelay-tests';

/** The one line openPostgres refuses `url` with. */
async function refusal(opening: Promise<unknown>): Promise<string> {
  const error = await opening.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(StartupError);
  const message = (error as StartupError).message;
  expect(message).not.toContain('\n');
  expect(message).not.toContain(PASSWORD);
  return message;
}

const withPassword = (url: string, password: string) => {
  const changed = new URL(url);
  changed.password = password;
  return changed.toString();
};

const opened: TestPostgresDatabase[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((database) => database.close()));
});

describe('openPostgres', () => {
  it('connects, and its pool answers under textrelay’s name', async () => {
    const { db, close } = await openPostgres(await postgresUrl());
    try {
      expect(await db.execute(sql`select current_setting('application_name') as name`)).toEqual([{ name: 'textrelay' }]);
    } finally {
      await close();
    }
  });

  it.each([
    ['not a URL', 'textrelay-tests'],
    ['postgres://postgres:textrelay-tests@[::1/textrelay', '[::1'],
    ['mysql://postgres:textrelay-tests@127.0.0.1:3306/textrelay', 'mysql'],
  ])('refuses the malformed URL %s without repeating it', async (url, part) => {
    const message = await refusal(openPostgres(url));
    expect(message).toBe('the PostgreSQL URL is malformed: expected postgres://user:password@host:port/database');
    expect(message).not.toContain(part);
  });

  it('names the server and the user when the password is wrong, and not the password', async () => {
    const url = withPassword(await postgresUrl(), 'not-the-password');
    const { port } = new URL(url);
    const message = await refusal(openPostgres(url));
    expect(message).toBe(
      `cannot connect to PostgreSQL at 127.0.0.1:${port} (database "postgres"): the server refused the password of user "postgres"`,
    );
    expect(message).not.toContain('not-the-password');
  });

  it('names the database that does not exist', async () => {
    const url = await postgresUrl('no_such_database');
    const message = await refusal(openPostgres(url));
    expect(message).toMatch(/^cannot connect to PostgreSQL at 127\.0\.0\.1:\d+ \(database "no_such_database"\): no such database/);
  });

  it('names the address nobody listens on', async () => {
    const port = await freePort();
    const message = await refusal(openPostgres(`postgres://postgres:${PASSWORD}@127.0.0.1:${port}/textrelay`));
    expect(message).toBe(
      `cannot connect to PostgreSQL at 127.0.0.1:${port} (database "textrelay"): connection refused (is the server running, and listening on that port?)`,
    );
  });

  it('says when the host does not exist', async () => {
    const message = await refusal(openPostgres(`postgres://postgres:${PASSWORD}@no-such-host.invalid:5432/textrelay`));
    expect(message).toBe('cannot connect to PostgreSQL at no-such-host.invalid:5432 (database "textrelay"): no such host');
  });

  it('gives up on a server that accepts the connection and never answers', async () => {
    const silent: Server = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as { port: number };
    try {
      const message = await refusal(
        openPostgres(`postgres://postgres:${PASSWORD}@127.0.0.1:${port}/textrelay`, { connectTimeoutSeconds: 1 }),
      );
      expect(message).toBe(
        `cannot connect to PostgreSQL at 127.0.0.1:${port} (database "textrelay"): no answer within 1 s (a firewall, or a wrong host?)`,
      );
    } finally {
      silent.close();
    }
  });

  it('refuses a pool too small to migrate', async () => {
    expect(await refusal(openPostgres(await postgresUrl(), { poolSize: 1 }))).toMatch(/pool size must be a whole number of at least 2/);
  });
});

describe('the pool drizzle is given', () => {
  /** The statements with parameters this session has prepared. */
  const preparedOf = async (db: PgDb) =>
    (await db.execute<{ statement: string }>(sql`select statement from pg_prepared_statements where statement like '%$1%'`)).map(
      (row) => row.statement,
    );

  it('runs the queries drizzle builds as named prepared statements, in transactions and savepoints too', async () => {
    const database = await freshPostgresDatabase();
    opened.push(database);
    const email = (n: number) => `user${n}@example.com`;
    const findAccount = (db: PgDb, n: number) =>
      db
        .select({ id: accounts.id })
        .from(accounts)
        .where(eq(accounts.email, email(n)));
    const found = await database.db.transaction(async (tx) => {
      await findAccount(tx, 1);
      await tx.transaction(async (savepoint) => findAccount(savepoint, 2));
      return preparedOf(tx);
    });
    expect(found.filter((statement) => statement.includes('from "accounts"'))).toHaveLength(1);
  });
});

describe('migratePostgres', () => {
  const journal = JSON.parse(readFileSync(new URL('../../../migrations/postgres/meta/_journal.json', import.meta.url), 'utf8')) as {
    entries: { tag: string }[];
  };
  const known = String(journal.entries.length);
  const latestTag = journal.entries.at(-1)!.tag;
  const appliedMigrations = async (database: TestPostgresDatabase) =>
    (await database.db.execute<{ count: string }>(sql`select count(*) from drizzle.__drizzle_migrations`))[0]?.count;

  it('lets instances started together migrate one after the other, each succeeding', async () => {
    const empty = await emptyPostgresDatabase();
    const second = await openPostgres(empty.url);
    opened.push(empty, { ...second, url: empty.url });
    await Promise.all([migratePostgres(empty.db), migratePostgres(second.db), migratePostgres(empty.db)]);
    expect(await appliedMigrations(empty)).toBe(known);
    expect(await empty.db.execute(sql`select count(*)::int as count from accounts`)).toEqual([{ count: 0 }]);
  });

  it('does nothing to a database already migrated', async () => {
    const database = await freshPostgresDatabase();
    opened.push(database);
    await migratePostgres(database.db);
    expect(await appliedMigrations(database)).toBe(known);
  });

  it('refuses, in one line, a database migrated by a newer textrelay', async () => {
    const database = await freshPostgresDatabase();
    opened.push(database);
    const later = Date.UTC(2099, 0, 1);
    await database.db.execute(sql`insert into drizzle.__drizzle_migrations (hash, created_at) values ('future', ${later})`);
    const { port } = new URL(database.url);
    const name = new URL(database.url).pathname.slice(1);
    const message = await refusal(migratePostgres(database.db));
    expect(message).toBe(
      `the database "${name}" on PostgreSQL at 127.0.0.1:${port} was written by a newer textrelay (its schema has 1 migration(s) this version does not know, ` +
        `the latest made 2099-01-01T00:00:00.000Z; this version knows up to ${latestTag}); upgrade textrelay or use another database`,
    );
  });
});
