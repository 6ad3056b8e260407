import { sql } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { migratePostgres, openPostgres, type PostgresConnection } from '../../../src/db/postgres/connection.ts';
import { accountQueries } from '../../../src/db/postgres/queries/accounts.ts';
import { contactQueries } from '../../../src/db/postgres/queries/contacts.ts';
import { CONTACT_ORDER_FIELDS } from '../../../src/domain/contact-order.ts';
import { CONTACT_V2_ORDER_FIELDS } from '../../../src/domain/contact-view-v2.ts';
import { accountRow, contactRow, twinModule, useTwins } from '../../helpers/postgres-twins.ts';

/**
 * SQLite compares text byte by byte. A PostgreSQL database is often made with a linguistic
 * collation (en_US, ICU), under which 'B' sorts between 'a' and 'c' and '_x' after letters: the
 * listings must still come out in SQLite's order. The test databases are made with C.UTF-8, so
 * these tests make one with an ICU collation.
 */

const twins = useTwins();
let linguistic: PostgresConnection;
let name: string;
let made = 0;

beforeEach(async () => {
  name = `linguistic_${process.pid}_${++made}`;
  await twins.pg.execute(sql.raw(`create database ${name} template template0 encoding 'UTF8' locale_provider icu icu_locale 'en'`));
  const url = new URL(twins.url);
  url.pathname = `/${name}`;
  linguistic = await openPostgres(url.toString(), { poolSize: 2 });
  await migratePostgres(linguistic.db);
}, 30_000);

afterEach(async () => {
  await linguistic.close();
  await twins.pg.execute(sql.raw(`drop database ${name} with (force)`));
});

const NAMES = ['alice', 'Bob', '_x', 'Émile', 'zoe', 'bob'];

function namedContact(index: number) {
  return contactRow(`c_${NAMES[index]}`, `+1415555${1000 + index}`, {
    firstName: NAMES[index]!,
    lastName: NAMES[NAMES.length - 1 - index]!,
    lastMessageAt: index % 2 === 0 ? null : 1_000 + index,
  });
}

describe('on a database whose collation is linguistic', () => {
  it('sorts the server’s collation differently from SQLite, so the orders below are tested', async () => {
    const rows = await linguistic.db.execute<{ x: string }>(sql`select x from (values ('_x'), ('Bob'), ('alice')) v(x) order by x`);
    expect(rows.map((row) => row.x)).not.toEqual(['Bob', '_x', 'alice']);
  });

  it('lists contacts in every order as SQLite does, byte-wise, with NULLs where SQLite puts them', async () => {
    const accounts = twinModule(twins, 'accounts', accountQueries(linguistic.db));
    await accounts.same((q) => q.insertAccount(accountRow('a', 1)));
    const contacts = twinModule(twins, 'contacts', contactQueries(linguistic.db));
    for (const index of NAMES.keys()) await contacts.same((q) => q.insert(namedContact(index)));
    for (const direction of ['asc', 'desc'] as const) {
      for (const orderBy of CONTACT_ORDER_FIELDS) await contacts.same((q) => q.list('a', { orderBy, direction, limit: 10, offset: 0 }));
      for (const orderBy of CONTACT_V2_ORDER_FIELDS)
        await contacts.same((q) => q.listV2('a', { orderBy, direction, limit: 10, offset: 0 }));
    }
    const byFirstName = await contacts.same((q) => q.list('a', { orderBy: 'firstName', direction: 'asc', limit: 10, offset: 0 }));
    expect(byFirstName.map((row) => row.firstName)).toEqual(['Bob', '_x', 'alice', 'bob', 'zoe', 'Émile']);
  });

  it('lists accounts as SQLite does, byte-wise', async () => {
    const accounts = twinModule(twins, 'accounts', accountQueries(linguistic.db));
    for (const id of ['b', 'a', '_c', 'B'])
      await accounts.same((q) => q.insertAccount({ ...accountRow(id, 1), email: `${id}@example.com` }));
    expect((await accounts.same((q) => q.list())).map((row) => row.id)).toEqual(['B', '_c', 'a', 'b']);
  });
});
