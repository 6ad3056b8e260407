/**
 * The database of the in-process CPU tools (send-cost.ts, ingest-cost.ts): a fresh SQLite file,
 * or a PostgreSQL server of its own started here (bench/postgres.ts, production durability) with
 * an empty migrated database, and the CPU that server's processes have used, so a tool can count
 * the database's part of an operation beside its own.
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { migratePostgres, openPostgres, type PgPool } from '../src/db/postgres/connection.ts';
import { startBenchPostgres } from './postgres.ts';

export type CostBackend = {
  name: 'sqlite' | 'postgres';
  /** What makeTestApp needs to run on it: a SQLite file, or the PostgreSQL pool. */
  appOptions: { database: string } | { postgresPool: PgPool };
  /** CPU seconds the database server has used so far (0 for SQLite, which runs in this process). */
  serverCpuSeconds(): number;
  close(): Promise<void>;
};

/** `--backend` of the tools: sqlite (the default) or postgres; `settings` are laid over the bench's PostgreSQL settings. */
export async function openCostBackend(
  backend: string | undefined,
  options: { sqliteFile?: string; settings?: Record<string, string> } = {},
): Promise<CostBackend> {
  const dir = mkdtempSync(join(tmpdir(), 'textrelay-cost-'));
  if (backend === undefined || backend === 'sqlite') {
    return {
      name: 'sqlite',
      appOptions: { database: options.sqliteFile ?? join(dir, 'bench.db') },
      serverCpuSeconds: () => 0,
      close: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  if (backend !== 'postgres') throw new Error(`--backend is sqlite or postgres (got ${backend})`);
  // PostgreSQL's own user must enter the folder when this process is root.
  chmodSync(dir, 0o777);
  const server = await startBenchPostgres(join(dir, 'data'), { initialise: true, settings: options.settings });
  const admin = postgres(server.url.replace(/\/textrelay$/, '/postgres'), { max: 1, onnotice: () => {} });
  await admin.unsafe('create database textrelay');
  await admin.end();
  const connection = await openPostgres(server.url);
  await migratePostgres(connection.db);
  return {
    name: 'postgres',
    appOptions: { postgresPool: connection.db },
    serverCpuSeconds: server.cpuSeconds,
    close: async () => {
      await connection.close();
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** CPU milliseconds used so far by this process and by the database server. */
export function cpuNow(backend: CostBackend): { app: number; database: number } {
  const { user, system } = process.cpuUsage();
  return { app: (user + system) / 1000, database: backend.serverCpuSeconds() * 1000 };
}

/** CPU per operation since `start`, in µs, this process's and the server's. */
export function cpuPerOperation(backend: CostBackend, start: { app: number; database: number }, operations: number) {
  const end = cpuNow(backend);
  return { app: ((end.app - start.app) * 1000) / operations, database: ((end.database - start.database) * 1000) / operations };
}
