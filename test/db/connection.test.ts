import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { closeDatabase, type Db, migrateDatabase, openDatabase } from '../../src/db/sqlite/connection.ts';

describe('a database file opened by textrelay', () => {
  const dir = mkdtempSync(join(tmpdir(), 'textrelay-connection-'));
  let db: Db | undefined;
  afterEach(() => {
    if (db) closeDatabase(db);
    rmSync(dir, { recursive: true, force: true });
  });

  it('runs in WAL mode with the durability, locking and checkpoint settings docs/robustness.md describes', () => {
    db = openDatabase(join(dir, 'nested', 'textrelay.db'));
    const setting = (name: string) => db!.$client.pragma(name, { simple: true });
    expect(setting('journal_mode')).toBe('wal');
    expect(setting('synchronous')).toBe(1); // NORMAL: a process crash loses nothing committed
    expect(setting('foreign_keys')).toBe(1);
    expect(setting('busy_timeout')).toBe(5_000); // CLI commands wait for the server's write lock
    expect(setting('wal_autocheckpoint')).toBe(10_000);
    expect(setting('temp_store')).toBe(2); // MEMORY: savepoints' sub-journals never reach a file
  });

  it('sorts on disk while migrating and keeps temporary data in memory afterwards', () => {
    db = openDatabase(join(dir, 'migrated.db'));
    const seen: unknown[] = [];
    const pragma = db.$client.pragma.bind(db.$client);
    db.$client.pragma = ((source: string, options?: Database.PragmaOptions) => {
      seen.push(source);
      return pragma(source, options);
    }) as typeof pragma;
    migrateDatabase(db);
    expect(seen).toEqual(['temp_store = FILE', 'temp_store = MEMORY']);
    expect(db.$client.pragma('temp_store', { simple: true })).toBe(2);
  });
});
