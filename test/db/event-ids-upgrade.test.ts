import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { afterEach, describe, expect, it } from 'vitest';
import * as schema from '../../src/db/schema.ts';
import type { Db } from '../../src/db/sqlite/connection.ts';
import { accountEventQueries } from '../../src/db/sqlite/queries/account-events.ts';

/**
 * A database from before the per-account event numbers holds events with one id sequence over all
 * accounts. After the upgrade, a Last-Event-ID a client kept from then still stands where it stood:
 * old events keep their id as their number, and every account goes on after the highest id given.
 */

const MIGRATIONS = fileURLToPath(new URL('../../migrations', import.meta.url));
const folders: string[] = [];

afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** The migrations as they were before `tag`: a copy whose journal ends just before it. */
function migrationsBefore(tag: string): string {
  const folder = mkdtempSync(join(tmpdir(), 'textrelay-migrations-'));
  folders.push(folder);
  cpSync(MIGRATIONS, folder, { recursive: true });
  const journalFile = join(folder, 'meta', '_journal.json');
  const journal = JSON.parse(readFileSync(journalFile, 'utf8')) as { entries: { tag: string }[] };
  const at = journal.entries.findIndex((entry) => entry.tag.startsWith(tag));
  expect(at, `no migration ${tag}`).toBeGreaterThan(0);
  writeFileSync(journalFile, JSON.stringify({ ...journal, entries: journal.entries.slice(0, at) }));
  return folder;
}

describe('upgrading the account event log to per-account numbers (SQLite)', () => {
  it('keeps old ids as numbers and goes on after the highest id ever given, emptied logs included', () => {
    const db = drizzle({ client: new Database(':memory:'), schema, casing: 'snake_case' }) as Db;
    migrate(db, { migrationsFolder: migrationsBefore('0008_') });
    const client = db.$client;
    const addAccount = client.prepare(
      'insert into accounts (id, email, plan, api_key_id, api_secret_hash, created_at) values (?, ?, ?, ?, ?, 0)',
    );
    for (const id of ['acc_a', 'acc_b', 'acc_c']) addAccount.run(id, `${id}@example.com`, 'sapphire', `key_${id}`, 'hash');
    const addEvent = client.prepare("insert into account_events (account_id, type, data, occurred_at) values (?, 'message.updated', ?, 0)");
    for (const [account, name] of [
      ['acc_a', 'a1'],
      ['acc_b', 'b1'],
      ['acc_a', 'a2'],
      ['acc_c', 'c1'],
      ['acc_b', 'b2'],
    ])
      addEvent.run(account, JSON.stringify({ name }));
    // Retention emptied acc_c's log: its client may still hold id 4.
    client.prepare("delete from account_events where account_id = 'acc_c'").run();

    migrate(db, { migrationsFolder: MIGRATIONS });
    const events = accountEventQueries(db);
    for (const account of ['acc_a', 'acc_b', 'acc_c']) {
      events.append({ accountId: account, type: 'message.updated', data: JSON.stringify({ name: `${account} new` }), occurredAt: 1 });
    }
    const resumed = (account: string, id: number) => events.after(account, id, 10).map((event) => [event.seq, JSON.parse(event.data).name]);
    expect(resumed('acc_a', 1)).toEqual([
      [3, 'a2'],
      [6, 'acc_a new'],
    ]);
    expect(resumed('acc_b', 2)).toEqual([
      [5, 'b2'],
      [6, 'acc_b new'],
    ]);
    expect(resumed('acc_c', 4)).toEqual([[6, 'acc_c new']]);
    events.append({ accountId: 'acc_a', type: 'message.updated', data: '{"name":"then"}', occurredAt: 2 });
    expect(resumed('acc_a', 6)).toEqual([[7, 'then']]);
  });
});
