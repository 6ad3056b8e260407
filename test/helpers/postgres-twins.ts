/**
 * The same query module on SQLite and on PostgreSQL, both empty and migrated, for tests that make
 * the same calls on each and expect the same answers: SQLite's queries are the spec of PostgreSQL's.
 */
import { expect } from 'vitest';
import type { AccountRow } from '../../src/db/rows.ts';
import { closeDatabase, migrateDatabase, openDatabase } from '../../src/db/sqlite/connection.ts';
import { createSqliteQueries } from '../../src/db/sqlite/queries.ts';
import type { Queries } from '../../src/db/store.ts';
import { freshPostgresDatabase, type TestPostgresDatabase } from './postgres-database.ts';

export type Twins = {
  sqlite: ReturnType<typeof createSqliteQueries>;
  postgres: TestPostgresDatabase;
  close(): Promise<void>;
};

export async function openTwins(): Promise<Twins> {
  const db = openDatabase(':memory:');
  migrateDatabase(db);
  const postgres = await freshPostgresDatabase();
  return {
    sqlite: createSqliteQueries(db),
    postgres,
    async close() {
      closeDatabase(db);
      await postgres.close();
    },
  };
}

/** Calls on one module of both databases: `same` runs a call on each and expects equal answers. */
export type TwinModule<Module> = {
  /** Runs `call` on SQLite, then on PostgreSQL, expects both answers equal, and returns PostgreSQL's. */
  same<T>(call: (module: Module) => Promise<T>): Promise<T>;
};

/** SQLite's `name` module beside `postgres`, its PostgreSQL twin (typed as the store's, which checks its methods). */
export function twinModule<Name extends keyof Queries>(twins: Twins, name: Name, postgres: Queries[Name]): TwinModule<Queries[Name]> {
  const sqliteModule = twins.sqlite[name] as Record<string, (...args: unknown[]) => unknown>;
  const sqlite = Object.fromEntries(
    Object.keys(sqliteModule).map((method) => [method, async (...args: unknown[]) => sqliteModule[method]!(...args)]),
  ) as Queries[Name];
  return {
    async same(call) {
      const expected = await call(sqlite);
      const answer = await call(postgres);
      expect(answer).toEqual(expected);
      return answer;
    },
  };
}

/** An account with every field set, created at `createdAt`. */
export function accountRow(id: string, createdAt: number): AccountRow {
  return {
    id,
    email: `${id}@example.com`,
    plan: 'blue',
    apiKeyId: `key-${id}`,
    apiSecretHash: `hash-${id}`,
    webhookSecret: null,
    previousWebhookSecret: null,
    previousWebhookSecretExpiresAt: null,
    webhookGlobalSecret: `global-${id}`,
    createdAt,
  };
}
