import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { migrate as migratePg } from 'drizzle-orm/postgres-js/migrator';
import { afterEach, describe, expect, it } from 'vitest';
import { outboxQueries as pgOutboxQueries } from '../../src/db/postgres/queries/outbox.ts';
import * as schema from '../../src/db/schema.ts';
import type { Db } from '../../src/db/sqlite/connection.ts';
import { outboxQueries } from '../../src/db/sqlite/queries/outbox.ts';
import { WAITS_FOR_EARLIER_CALLBACK } from '../../src/domain/delivery-views.ts';
import { emptyPostgresDatabase } from '../helpers/postgres-database.ts';

/**
 * The delivery queue's indexes became partial (pending rows by due time, rows in flight by lease)
 * and the attempt log lost AUTOINCREMENT: a database from before keeps every delivery and attempt,
 * and its queue goes on where it stood (due rows claimed, lapsed leases returned, new attempts
 * numbered after the old ones).
 */

const MIGRATIONS = fileURLToPath(new URL('../../migrations', import.meta.url));
const folders: string[] = [];

afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** The migrations in `folder` (relative to migrations/) as they were before `tag`: a copy whose journal ends just before it. */
function migrationsBefore(folder: string, tag: string): string {
  const copy = mkdtempSync(join(tmpdir(), 'textrelay-migrations-'));
  folders.push(copy);
  cpSync(join(MIGRATIONS, folder), copy, { recursive: true });
  const journalFile = join(copy, 'meta', '_journal.json');
  const journal = JSON.parse(readFileSync(journalFile, 'utf8')) as { entries: { tag: string }[] };
  const at = journal.entries.findIndex((entry) => entry.tag.startsWith(tag));
  expect(at, `no migration ${tag}`).toBeGreaterThan(0);
  writeFileSync(journalFile, JSON.stringify({ ...journal, entries: journal.entries.slice(0, at) }));
  return copy;
}

const NOW = 1_000_000;
const ACCOUNT = `insert into accounts (id, email, plan, api_key_id, api_secret_hash, created_at) values ('acc_a', 'a@example.com', 'sapphire', 'key_a', 'hash', 0)`;
/** seq 1 delivered, 2 in flight with a lapsed lease, 3 held behind it, 4 due (another message), 5 given up. */
const DELIVERIES = `insert into webhook_deliveries
  (webhook_id, account_id, message_handle, event_type, url, payload, state, attempt_count, next_attempt_at, lease_expires_at, created_at, updated_at, completed_at)
  values
  ('msg_1', 'acc_a', 'h1', 'message.status', 'https://a.test/cb', '{"n":1}', 'delivered', 1, 0, null, 0, 0, 1),
  ('msg_2', 'acc_a', 'h1', 'message.status', 'https://a.test/cb', '{"n":2}', 'delivering', 1, 0, ${NOW - 1}, 0, 0, null),
  ('msg_3', 'acc_a', 'h1', 'message.status', 'https://a.test/cb', '{"n":3}', 'pending', 0, ${WAITS_FOR_EARLIER_CALLBACK}, null, 0, 0, null),
  ('msg_4', 'acc_a', 'h2', 'message.status', 'https://a.test/cb', '{"n":4}', 'pending', 0, 5, null, 0, 0, null),
  ('msg_5', 'acc_a', 'h3', 'message.status', 'https://a.test/cb', '{"n":5}', 'failed', 3, 0, null, 0, 0, 3)`;
const ATTEMPTS = `insert into webhook_attempts (delivery_seq, attempted_at, duration_ms, status_code) values (1, 1, 3, 200), (2, 2, 4, 500), (5, 3, 5, 500)`;
const ATTEMPT = { attemptedAt: NOW, durationMs: 1, statusCode: 200, responseExcerpt: 'ok', error: null };

describe('upgrading the delivery queue to partial indexes (SQLite)', () => {
  it('keeps every delivery and attempt, and the queue goes on where it stood', () => {
    const db = drizzle({ client: new Database(':memory:'), schema, casing: 'snake_case' }) as Db;
    migrate(db, { migrationsFolder: migrationsBefore('.', '0013_') });
    const client = db.$client;
    client.exec(ACCOUNT);
    client.exec(DELIVERIES);
    client.exec(ATTEMPTS);

    migrate(db, { migrationsFolder: MIGRATIONS });
    const outbox = outboxQueries(db);
    expect(outbox.countByState()).toEqual({ pending: 2, delivering: 1, delivered: 1, failed: 1 });
    expect(outbox.attemptsOf([1, 2, 5]).map((attempt) => [attempt.id, attempt.deliverySeq, attempt.statusCode])).toEqual([
      [1, 1, 200],
      [2, 2, 500],
      [3, 5, 500],
    ]);
    expect(outbox.dueCallbacks(NOW, 'first', 10).map((row) => row.webhookId)).toEqual(['msg_4']);
    outbox.expireLeases(NOW);
    expect(outbox.dueCallbacks(NOW, 'first', 10).map((row) => row.webhookId)).toEqual(['msg_2', 'msg_4']);
    expect(outbox.failedSince(0).map((row) => row.webhookId)).toEqual(['msg_5']);

    outbox.lease([{ seq: 2 } as never], NOW + 10, NOW);
    outbox.recordAttempts(
      [
        {
          seq: 2,
          accountId: 'acc_a',
          messageHandle: 'h1',
          url: 'https://a.test/cb',
          leaseExpiresAt: NOW + 10,
          attempt: ATTEMPT,
          outcome: { kind: 'delivered' },
        },
      ],
      NOW,
    );
    expect(outbox.attemptsOf([2]).map((attempt) => attempt.id)).toEqual([2, 4]);
    expect(client.prepare(`select count(*) as n from sqlite_sequence where name = 'webhook_attempts'`).get()).toEqual({ n: 0 });
  });
});

describe('upgrading the delivery queue to partial indexes (PostgreSQL)', () => {
  it('keeps every delivery and attempt, and the queue goes on where it stood', async () => {
    const database = await emptyPostgresDatabase();
    try {
      const { db } = database;
      await migratePg(db, { migrationsFolder: migrationsBefore('postgres', '0007_') });
      await db.$client.unsafe(ACCOUNT);
      await db.$client.unsafe(DELIVERIES);
      await db.$client.unsafe(ATTEMPTS);

      await migratePg(db, { migrationsFolder: join(MIGRATIONS, 'postgres') });
      const outbox = pgOutboxQueries(db);
      expect(await outbox.countByState()).toEqual({ pending: 2, delivering: 1, delivered: 1, failed: 1 });
      expect((await outbox.attemptsOf([1, 2, 5])).map((attempt) => [attempt.id, attempt.deliverySeq, attempt.statusCode])).toEqual([
        [1, 1, 200],
        [2, 2, 500],
        [3, 5, 500],
      ]);
      expect((await outbox.dueCallbacks(NOW, 'first', 10)).map((row) => row.webhookId)).toEqual(['msg_4']);
      await outbox.expireLeases(NOW);
      expect((await outbox.dueCallbacks(NOW, 'first', 10)).map((row) => row.webhookId)).toEqual(['msg_2', 'msg_4']);
      expect((await outbox.failedSince(0)).map((row) => row.webhookId)).toEqual(['msg_5']);
      const indexes = await db.$client.unsafe(
        `select indexname from pg_indexes where tablename = 'webhook_deliveries' and indexdef like '%WHERE%' order by indexname`,
      );
      expect(indexes.map((row) => row.indexname)).toEqual([
        'webhook_deliveries_due_idx',
        'webhook_deliveries_failed_idx',
        'webhook_deliveries_lease_idx',
      ]);
    } finally {
      await database.close();
    }
  });
});
