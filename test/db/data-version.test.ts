import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { closeDatabase, migrateDatabase, openDatabase } from '../../src/db/sqlite/connection.ts';
import { createSqliteStore } from '../../src/db/sqlite/store.ts';
import { createGroupCommit } from '../../src/services/group-commit.ts';

// The server's connection and a CLI command's on one file: `pragma data_version` is how the first sees the second's commits.

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

function twoConnections() {
  const dir = mkdtempSync(join(tmpdir(), 'data-version-'));
  const file = join(dir, 'textrelay.db');
  const server = openDatabase(file);
  migrateDatabase(server);
  const cli = openDatabase(file);
  cleanups.push(
    () => rmSync(dir, { recursive: true, force: true }),
    () => closeDatabase(server),
    () => closeDatabase(cli),
  );
  const sqlite = createSqliteStore(server, file);
  let reads = 0;
  const current = sqlite.queries.dataVersion.current;
  sqlite.queries.dataVersion.current = () => {
    reads += 1;
    return current();
  };
  const otherCommits = () => cli.$client.exec('create table probe (x); drop table probe');
  return { store: sqlite.store, reads: () => reads, otherCommits };
}

describe('pragma data_version on SQLite', () => {
  it('is read once in a transaction, however many requests of a batch ask', async () => {
    const { store, reads } = twoConnections();
    const groupCommit = createGroupCommit(store);
    const ask = () => groupCommit.run(async (tx) => [await tx.dataVersion.current(), await tx.dataVersion.current()]);
    const answers = await Promise.all([ask(), ask(), ask()]);
    expect(new Set(answers.flat()).size).toBe(1);
    expect(reads()).toBe(1);
  });

  it('moves in the next transaction after another connection committed', async () => {
    const { store, reads, otherCommits } = twoConnections();
    const before = await store.transaction((tx) => tx.dataVersion.current());
    otherCommits();
    const inside = await store.transaction((tx) => tx.dataVersion.current());
    const outside = await store.dataVersion.current();
    expect(inside).not.toBe(before);
    expect(outside).toBe(inside);
    expect(reads()).toBe(3);
  });
});
