import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { migrateDataCommand } from '../../src/cli/migrate-data.ts';
import { UsageError } from '../../src/cli/usage-error.ts';
import { loadConfig } from '../../src/config.ts';
import { closeDatabase, migrateDatabase, openDatabase } from '../../src/db/sqlite/connection.ts';
import { StartupError } from '../../src/startup-error.ts';
import { freshPostgresDatabase } from '../helpers/postgres-database.ts';

const folder = mkdtempSync(join(tmpdir(), 'textrelay-migrate-data-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const silent = { isTTY: false, write: () => true };
const run = (flags: { from?: string; to?: string }) => migrateDataCommand(flags, loadConfig({}), silent);

function migratedFile(name: string): string {
  const file = join(folder, name);
  const db = openDatabase(file);
  migrateDatabase(db);
  closeDatabase(db);
  return file;
}

describe('textrelay migrate-data', () => {
  it.each([
    [{ to: 'postgres://u@h/d' }, '--from FILE is required: the SQLite file to copy'],
    [{ from: 'a.db' }, '--to URL is required: the PostgreSQL database to copy into (postgres://user:password@host:port/database)'],
    [{ from: 'a.db', to: 'mysql://u@h/d' }, '--to must be a PostgreSQL URL: postgres://user:password@host:port/database'],
    [{ from: '', to: 'postgres://u@h/d' }, '--from FILE must name a file'],
  ])('refuses %j as a usage error', async (flags, message) => {
    const refused = run(flags);
    await expect(refused).rejects.toThrow(UsageError);
    await expect(refused).rejects.toThrow(message);
  });

  it('stops with one line, naming the server, when PostgreSQL cannot be reached', async () => {
    const refused = run({ from: migratedFile('unreachable.db'), to: 'postgres://someone:secret@127.0.0.1:1/textrelay' });
    await expect(refused).rejects.toThrow(StartupError);
    await expect(refused).rejects.toThrow(/^cannot connect to PostgreSQL at 127\.0\.0\.1:1 \(database "textrelay"\): connection refused/);
  });

  it('warns that rows written after the snapshot are not copied when another process has the file open, and only then', async () => {
    const file = migratedFile('held.db');
    const warnings = async () => {
      const database = await freshPostgresDatabase();
      const written: string[] = [];
      await migrateDataCommand({ from: file, to: database.url }, loadConfig({}), {
        isTTY: false,
        write: (text: string) => written.push(text),
      });
      await database.close();
      return written.filter((text) => text.startsWith('warning:'));
    };
    const server = openDatabase(file);
    try {
      expect(await warnings()).toEqual([
        `warning: ${file} is open in another process (a running server?): the copy reads one snapshot, and rows written after it are not copied; stop the server first\n`,
      ]);
    } finally {
      closeDatabase(server);
    }
    expect(await warnings()).toEqual([]);
  });

  it('writes each table’s rows to the progress stream: redrawn on a terminal, one summary line each', async () => {
    const file = migratedFile('empty.db');
    const database = await freshPostgresDatabase();
    const written: string[] = [];
    const output = await migrateDataCommand({ from: file, to: database.url }, loadConfig({}), {
      isTTY: true,
      write: (text: string) => written.push(text),
    });
    await database.close();
    expect(written).toContain('\raccounts: 0/0 (100%)');
    expect(written).toContain('accounts: 0 rows\n');
    expect(output.human).toMatch(/^Copied 0 rows of \d+ tables from .*empty\.db to the PostgreSQL database "test_\w+" in [\d.]+ s\.$/);
  });
});
