import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/postgres-js';
import { migrate } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';
import { StartupError } from '../../startup-error.ts';
import { databaseFiles } from '../database-files.ts';
import { unknownMigrationsRefusal } from '../unknown-migrations.ts';
import type { PgDb } from './db.ts';
import { namedStatements } from './named-statements.ts';
import * as schema from './schema.ts';

/** The pool itself (not a transaction of it), with its postgres.js client. */
export type PgPool = PgDb & { $client: postgres.Sql };

export type PostgresConnection = { db: PgPool; close(): Promise<void> };

export type PostgresPoolOptions = {
  /** Connections in the pool (default 10); at least 2, as migratePostgres holds one for its lock while the migrator uses another. */
  poolSize?: number;
  /** How long the first connection may take (default 10 s): postgres.js would retry a server that does not answer without end. */
  connectTimeoutSeconds?: number;
  /** PostgreSQL cancels a statement of this pool running longer (0 or unset: never). */
  statementTimeoutMs?: number;
};

/** The advisory lock every textrelay takes to migrate, so instances started together migrate one after the other. */
const MIGRATION_LOCK = 0x74657874_72656c61n; // "textrela"

/** drizzle's record of applied migrations in PostgreSQL (its migrator's defaults). */
const MIGRATIONS_TABLE = 'drizzle.__drizzle_migrations';

/**
 * Seconds before a connection is tried again after one failed: postgres.js's own delay grows to
 * 20 s, and a query waits it out in the queue, so a request in an outage hung for seconds instead
 * of being refused at once. At most half a second still spares a server that is coming back.
 */
export function reconnectDelaySeconds(failures: number): number {
  return Math.min(0.025 * 2 ** failures, 0.5);
}

const MALFORMED_URL = 'the PostgreSQL URL is malformed: expected postgres://user:password@host:port/database';

/**
 * Connects a pool of `poolSize` connections to the database at `url` and checks it answers, so a
 * wrong URL, password or database stops the start with one line naming the server (never the password).
 */
export async function openPostgres(
  url: string,
  { poolSize = 10, connectTimeoutSeconds = 10, statementTimeoutMs = 0 }: PostgresPoolOptions = {},
): Promise<PostgresConnection> {
  if (!Number.isInteger(poolSize) || poolSize < 2) {
    throw new StartupError(`the PostgreSQL pool size must be a whole number of at least 2 (got ${poolSize})`);
  }
  if (!/^postgres(ql)?:\/\//i.test(url)) throw new StartupError(MALFORMED_URL);
  let client: postgres.Sql;
  try {
    client = postgres(url, {
      max: poolSize,
      connect_timeout: connectTimeoutSeconds,
      backoff: reconnectDelaySeconds,
      // PostgreSQL's notices ("already exists, skipping") are not news for the log.
      onnotice: () => {},
      // Who holds a connection, in pg_stat_activity.
      connection: { application_name: 'textrelay', statement_timeout: statementTimeoutMs },
    });
  } catch {
    // The URL parser's error carries the URL, password included: not repeated.
    throw new StartupError(MALFORMED_URL);
  }
  try {
    await answersWithin(client, connectTimeoutSeconds * 1000);
  } catch (error) {
    await client.end({ timeout: 0 });
    throw new StartupError(cannotConnect(client.options, error, connectTimeoutSeconds));
  }
  return { db: drizzle({ client: namedStatements(client), schema, casing: 'snake_case' }), close: () => client.end({ timeout: 5 }) };
}

async function answersWithin(client: postgres.Sql, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error('no answer'), { code: 'CONNECT_TIMEOUT' })), ms);
  });
  try {
    await Promise.race([client`select 1`, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

type ClientOptions = postgres.Sql['options'];

/** The database for a person reading a log line: its name and server, never the password. */
export function describePostgres(db: PgPool): string {
  return `PostgreSQL database "${db.$client.options.database}" at ${addressOf(db.$client.options)}`;
}

/** `host:port` (each, for a URL naming several): what a person needs to find the server. */
function addressOf(options: ClientOptions): string {
  if (options.path) return options.path;
  return options.host.map((host, index) => `${host}:${options.port[index] ?? options.port[0]}`).join(', ');
}

/** Why the first connection failed, for a person, with the password removed from anything the server said. */
function cannotConnect(options: ClientOptions, error: unknown, timeoutSeconds: number): string {
  const code = (error as { code?: unknown }).code;
  const reason =
    code === 'ECONNREFUSED'
      ? 'connection refused (is the server running, and listening on that port?)'
      : code === 'CONNECT_TIMEOUT' || code === 'ETIMEDOUT'
        ? `no answer within ${timeoutSeconds} s (a firewall, or a wrong host?)`
        : code === 'ENOTFOUND' || code === 'EAI_AGAIN'
          ? 'no such host'
          : code === '28P01'
            ? `the server refused the password of user "${options.user}"`
            : code === '28000'
              ? `the server does not let user "${options.user}" connect (pg_hba.conf)`
              : code === '3D000'
                ? 'no such database (create it first)'
                : withoutPassword(String((error as Error).message ?? error), options.pass);
  return `cannot connect to PostgreSQL at ${addressOf(options)} (database "${options.database}"): ${reason}`;
}

function withoutPassword(text: string, password: unknown): string {
  if (typeof password !== 'string' || password === '') return text;
  return text.replaceAll(password, '***').replaceAll(encodeURIComponent(password), '***');
}

/**
 * Brings the database's schema up to this build's, one instance at a time: the first to take the
 * advisory lock migrates, the others wait and find nothing left to do. Refuses a database
 * migrated by a textrelay this build does not know of.
 */
export async function migratePostgres(db: PgPool): Promise<void> {
  const migrationsFolder = join(databaseFiles().migrationsFolder, 'postgres');
  // A session lock on a connection of its own: the migrator opens its own transaction on the pool.
  const lock = await db.$client.reserve();
  try {
    await lock`select pg_advisory_lock(${MIGRATION_LOCK.toString()}::bigint)`;
    try {
      await refuseUnknownMigrations(db, migrationsFolder);
      await migrate(db, { migrationsFolder });
    } finally {
      await lock`select pg_advisory_unlock(${MIGRATION_LOCK.toString()}::bigint)`;
    }
  } finally {
    lock.release();
  }
}

async function refuseUnknownMigrations(db: PgPool, migrationsFolder: string): Promise<void> {
  const [table] = await db.execute<{ name: string | null }>(sql`select to_regclass(${MIGRATIONS_TABLE})::text as name`);
  if (!table?.name) return;
  const applied = await db.execute<{ created_at: string }>(sql`select created_at from ${sql.raw(MIGRATIONS_TABLE)}`);
  const refusal = unknownMigrationsRefusal(
    `the database "${db.$client.options.database}" on PostgreSQL at ${addressOf(db.$client.options)}`,
    applied.map((row) => Number(row.created_at)),
    migrationsFolder,
    'database',
  );
  if (refusal !== undefined) throw new StartupError(refusal);
}
