/**
 * The whole benchmark in one run, so its ratios compare figures taken under the same conditions:
 *
 *   npm run bench                 1,000,000 seeded messages, 10 s per scenario
 *   npm run bench -- --quick      a smoke run: 20,000 messages, 2 s per scenario
 *   npm run bench -- --reseed     rebuild the cached seeded database
 *   npm run bench -- --only listings
 *                                 the framework floor and the listing scenarios at 4 and 1 connections
 *                                 alone, printed, no results written (to compare builds quickly)
 *   npm run bench -- --backend postgres [--instances 2]
 *                                 the same scenarios on PostgreSQL (bench/postgres.ts), one or two
 *                                 `textrelay serve` on one database; results in postgres.{json,md}
 *                                 (postgres-quick.* with --quick)
 *
 * 1. calibration: wrk against a bare node:http JSON handler (bench/bare-server.ts), then against
 *    the framework alone validating a status callback (bench/framework-floor.ts);
 * 2. a real `textrelay serve` on the seeded database, under wrk: status ingest (unique events),
 *    send-message (unique bodies), message listing (50 rows, filtered), the SDK's v2 listing
 *    (50 rows and their total), a mixed load, then the concurrency sweep: send-message and status
 *    ingest (no callback) at 1, 8, 32 and 128 connections, in shorter runs;
 * 3. webhook dispatch to a local receiver (bench/dispatch.ts).
 * On PostgreSQL the PostgreSQL floor (bench/postgres-floor.ts) is measured before the servers start.
 * Servers (and PostgreSQL) run on core 0 and wrk on core 1 (taskset) when the machine has two
 * cores. Results go to bench/results/latest.{json,md} and latest.svg (SQLite).
 */
import { execSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import postgres from 'postgres';
import { loadConfig } from '../src/config.ts';
import { renderChart } from './chart.ts';
import { measureDispatch } from './dispatch.ts';
import { listingPaths } from './listing-paths.ts';
import { addPostgresIngestTargets, type BenchPostgres, POSTGRES_SETTINGS, seedPostgres, startBenchPostgres } from './postgres.ts';
import { measurePostgresDispatch, waitForOutboxDrained } from './postgres-dispatch.ts';
import { measurePostgresFloor, type PostgresFloor } from './postgres-floor.ts';
import { type PostgresReport, recordPostgresReport, renderPostgresResults } from './postgres-report.ts';
import {
  CAN_PIN,
  cpuSeconds,
  peakRssMb,
  pinProcess,
  REPO_ROOT,
  type ServerProcess,
  spawnPinned,
  startServer,
  startSink,
  stopChild,
  waitForLine,
  waitUntilIdle,
} from './processes.ts';
import {
  type BenchReport,
  FRAMEWORK_FLOOR,
  LISTING_ALONE,
  LISTING_LATENCY,
  LISTING_LATENCY_CONNECTIONS,
  LISTING_V2,
  QUIET_INGEST,
  renderTable,
  type ScenarioResult,
  SWEEP_CONNECTIONS,
  type SweepResult,
  TARGETS,
} from './report.ts';
import { type SeededAccount, seedDatabase } from './seed.ts';
import { ensureWrk, type LoadResult, runWrk, worstLatencies } from './wrk.ts';

const { values: args } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    reseed: { type: 'boolean', default: false },
    connections: { type: 'string', default: '32' },
    backend: { type: 'string', default: 'sqlite' },
    instances: { type: 'string', default: '1' },
    only: { type: 'string' },
    /** Server flags, e.g. --node-arg=--cpu-prof to profile the server under the same load. */
    'node-arg': { type: 'string', multiple: true, default: [] },
  },
});

const quick = args.quick;
if (args.only !== undefined && args.only !== 'listings') throw new Error(`--only is listings (got ${args.only})`);
const listingsOnly = args.only === 'listings';
const backend = args.backend;
const INSTANCES = Number(args.instances);
if (backend !== 'sqlite' && backend !== 'postgres') throw new Error(`--backend is sqlite or postgres (got ${backend})`);
if (![1, 2].includes(INSTANCES) || (backend === 'sqlite' && INSTANCES !== 1)) {
  throw new Error('--instances is 1 or 2, and more than 1 needs --backend postgres: SQLite is one process');
}
const plan = quick ? { messages: 20_000, endUsers: 300, groups: 20 } : { messages: 1_000_000, endUsers: 2_000, groups: 100 };
const SECONDS = quick ? 2 : 10;
const WARMUP_SECONDS = quick ? 1 : 3;
const DISPATCH_MESSAGES = quick ? 500 : 5_000;
const CONNECTIONS = Number(args.connections);
const THREADS = 1;
const SERVER_CPU = CAN_PIN ? 0 : undefined;
const GENERATOR_CPU = CAN_PIN ? 1 : undefined;
const INGEST_SECRET = 'bench-ingest-secret';
/** Status events (and sends) a second one wrk thread may make at most: each event needs a seeded message to apply to. */
const REQUESTS_PER_SECOND_MAX = 10_000;
/** Status events one wrk run may send at most (per thread). */
const INGEST_PER_RUN = REQUESTS_PER_SECOND_MAX * SECONDS;
const SWEEP_SECONDS = quick ? 1 : 5;
const SWEEP_WARMUP_SECONDS = quick ? 1 : 2;
const SWEEP_SETTINGS = { seconds: SWEEP_SECONDS, warmupSeconds: SWEEP_WARMUP_SECONDS };
const SWEEP_PER_RUN = REQUESTS_PER_SECOND_MAX * Math.max(SWEEP_SECONDS, SWEEP_WARMUP_SECONDS);
/** textrelay's pool of PostgreSQL connections per serve process, which the PostgreSQL floor's client gets too. */
const SERVER_POOL_SIZE = loadConfig({
  TEXTRELAY_DATABASE_POOL_SIZE: process.env.TEXTRELAY_DATABASE_POOL_SIZE,
}).TEXTRELAY_DATABASE_POOL_SIZE;
const RESULTS = new URL('results/', import.meta.url);

function log(line: string): void {
  console.log(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}`);
}

/** wrk against a one-file server of bench/ (no database): a point of comparison measured in the same run. */
async function calibrate(server: 'bare-server' | 'framework-floor', script: 'bare' | 'ingest'): Promise<LoadResult> {
  const child = spawnPinned(SERVER_CPU, process.execPath, ['--import', 'tsx', `bench/${server}.ts`], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const [, url] = await waitForLine(child, /listening on (http:\/\/\S+)/);
    const env = { BENCH_INGEST_SECRET: INGEST_SECRET, BENCH_STRIDE: '0', BENCH_RUN: 'floor', BENCH_INGEST_FIRST: '0' };
    const load = { script, url: url!, connections: CONNECTIONS, threads: THREADS, cpu: GENERATOR_CPU, env } as const;
    await runWrk({ ...load, seconds: WARMUP_SECONDS });
    return await runWrk({ ...load, seconds: SECONDS });
  } finally {
    await stopChild(child);
  }
}

/**
 * Messages the ingest scenarios move to SENT: QUEUED, handed over as ingest-<n>. The first
 * CALLBACK_TARGETS have a status callback to the sink, so every applied event also writes its
 * callback as in production; the QUIET_TARGETS after them have none. Dated before the seeded
 * history: newest-first listings filtered on a column without an index of its own (is_outbound)
 * would otherwise walk through all of them before reaching the seeded rows.
 */
function addIngestTargets(file: string, callbackUrl: string): void {
  const db = new Database(file);
  db.prepare(`
    with recursive n(i) as (select 0 union all select i + 1 from n where i < cast(@count as integer) - 1)
    insert into messages (handle, account_id, is_outbound, message_type, status, line_number, number, contact_id, status_callback, transport_handle, handed_over_at, date_sent, date_updated)
    select 'ingest-' || i, t.account_id, 1, 'message', 'QUEUED', t.line_number, t.number, t.contact_id,
      case when i < @withCallback then @callbackUrl end, 'ingest-' || i, t.first - 1 - i, t.first - 1 - i, t.first - 1 - i
    from n, (select *, (select min(date_sent) from messages) as first from messages where message_type = 'message' and is_outbound = 1 order by id desc limit 1) t`).run(
    { count: CALLBACK_TARGETS + QUIET_TARGETS, withCallback: CALLBACK_TARGETS, callbackUrl },
  );
  db.close();
}

/** Where the load goes and whose CPU is counted: the serve processes, and PostgreSQL's when it runs. */
type System = { servers: ServerProcess[]; databaseCpuSeconds?: () => number };

type Measured = LoadResult & {
  serverCpu: number;
  databaseCpu?: number;
  serverPeakRssMb: number;
  serverCpuMicrosPerRequest: number;
  databaseCpuMicrosPerRequest?: number;
};

/** The length of a scenario's runs, its connections, and the events (or sends) each of its runs reserves per thread. */
type Load = { connections: number; seconds: number; warmupSeconds: number; perRun: number };

const SCENARIO_LOAD: Load = { connections: CONNECTIONS, seconds: SECONDS, warmupSeconds: WARMUP_SECONDS, perRun: INGEST_PER_RUN };

/** Where each run's fresh targets start: handed-over messages (ingest-<n>) and end users (a number counter). */
type Targets = { ingest: (count: number) => number; send: (count: number) => number };

/** Area codes the send scenarios write to, one per wrk process, so no two processes create the same end user. */
const SEND_AREAS: Partial<Record<string, string[]>> = { send: ['212', '332'], mixed: ['718', '347'] };

/** The wrk processes of one load as one: requests summed, the worse latency of each percentile. */
function combine(results: LoadResult[]): LoadResult {
  if (results.length === 1) return results[0]!;
  const stolen = results.map((result) => result.stolenCpu).filter((value) => value !== undefined);
  return {
    requests: results.reduce((sum, result) => sum + result.requests, 0),
    seconds: Math.max(...results.map((result) => result.seconds)),
    requestsPerSecond: results.reduce((sum, result) => sum + result.requestsPerSecond, 0),
    errors: results.reduce((sum, result) => sum + result.errors, 0),
    latencyMs: worstLatencies(results.map((result) => result.latencyMs)),
    generatorCpu: Number(results.reduce((sum, result) => sum + result.generatorCpu, 0).toFixed(2)),
    ...(stolen.length === 0 ? {} : { stolenCpu: Math.max(...stolen) }),
  };
}

/**
 * A warm-up run, then the measured one; status events and sends of each go to their own range of
 * targets (handed-over messages, new end users). With several instances, one wrk process per
 * instance takes its share of the connections (a single connection stays a single wrk on the first
 * instance).
 */
async function measure(
  system: System,
  script: 'ingest' | 'send' | 'listing' | 'mixed',
  env: Record<string, string>,
  targets: Targets,
  load: Load = SCENARIO_LOAD,
): Promise<Measured> {
  const { connections } = load;
  const servers = system.servers.slice(0, connections);
  const sendsEvents = script === 'ingest' || script === 'mixed';
  const sends = script === 'send' || script === 'mixed';
  const eventsPerProcess = load.perRun / servers.length;
  const runAll = (run: string, seconds: number) =>
    Promise.all(
      servers.map((server, i) => {
        const area = SEND_AREAS[script]?.[i];
        return runWrk({
          script,
          url: server.url,
          connections: connections / servers.length,
          threads: THREADS,
          cpu: GENERATOR_CPU,
          seconds,
          env: {
            ...env,
            ...(area === undefined ? {} : { BENCH_SEND_AREA: area }),
            BENCH_STRIDE: String(eventsPerProcess),
            BENCH_RUN: run,
            BENCH_INGEST_FIRST: String(sendsEvents ? targets.ingest(eventsPerProcess * THREADS) : 0),
            BENCH_SEND_FIRST: String(sends ? targets.send(eventsPerProcess * THREADS) : 0),
          },
        });
      }),
    );
  const serverCpu = () => system.servers.reduce((sum, server) => sum + cpuSeconds(server.pid), 0);
  // Webhook-ids and message bodies carry the run's name: readable apart in the database.
  const name = `${script}-c${connections}-${load.seconds}s`;
  await runAll(`${name}-warmup`, load.warmupSeconds);
  // What the warm-up's wrk left in flight when it exited is still served after it: at many
  // connections on a slow backend it would take the measured run's first second and its CPU.
  const settling = await waitUntilIdle(() => serverCpu() + (system.databaseCpuSeconds?.() ?? 0));
  if (settling > 1_000) log(`the server side took ${(settling / 1000).toFixed(1)} s to finish the warm-up's requests`);
  const serverBefore = serverCpu();
  const databaseBefore = system.databaseCpuSeconds?.();
  const result = combine(await runAll(`${name}-run`, load.seconds));
  const serverSeconds = serverCpu() - serverBefore;
  const databaseSeconds = databaseBefore === undefined ? undefined : system.databaseCpuSeconds!() - databaseBefore;
  const perSecond = (seconds: number) => Number((seconds / result.seconds).toFixed(2));
  const perRequest = (seconds: number) => Math.round((seconds * 1e6) / Math.max(result.requests, 1));
  return {
    ...result,
    serverCpu: perSecond(serverSeconds),
    serverCpuMicrosPerRequest: perRequest(serverSeconds),
    // The peak so far, read after each scenario: which one raised it shows in the table.
    serverPeakRssMb: Math.max(...system.servers.map((server) => peakRssMb(server.pid))),
    ...(databaseSeconds === undefined
      ? {}
      : { databaseCpu: perSecond(databaseSeconds), databaseCpuMicrosPerRequest: perRequest(databaseSeconds) }),
  };
}

/** Four wrk runs send status events to messages with a callback (ingest and mixed, each with a warm-up): each gets its own targets. */
const CALLBACK_TARGETS = 4 * INGEST_PER_RUN * THREADS;
/** Two (the quiet ingest and its warm-up) and the sweep's two at each level send them to messages without one. */
const QUIET_TARGETS = 2 * INGEST_PER_RUN * THREADS + 2 * SWEEP_CONNECTIONS.length * SWEEP_PER_RUN * THREADS;

/** The seeded database the servers run on, with the ingest targets added: the SQLite file, or PostgreSQL seeded from it. */
type BenchDatabase = {
  seeded: SeededAccount;
  /** What tells `textrelay serve` where the database is. */
  env: Record<string, string>;
  postgres?: BenchPostgres;
  close(): Promise<void>;
};

async function openBenchDatabase(dir: string, callbackUrl: string): Promise<BenchDatabase> {
  const file = join(dir, 'bench.db');
  const seeded = await seedDatabase(file, plan, { fresh: args.reseed, log });
  if (backend === 'sqlite') {
    addIngestTargets(file, callbackUrl);
    return { seeded, env: { TEXTRELAY_DB: file }, close: async () => {} };
  }
  const data = await seedPostgres(file, seeded, { fresh: args.reseed, log });
  const database = await startBenchPostgres(data.dir);
  // PostgreSQL takes the servers' core: the server side has one core, as SQLite inside the server has.
  if (SERVER_CPU !== undefined) database.pin(SERVER_CPU);
  await addPostgresIngestTargets(database.url, { withCallback: CALLBACK_TARGETS, quiet: QUIET_TARGETS }, callbackUrl);
  return {
    seeded,
    env: { TEXTRELAY_DATABASE_URL: database.url },
    postgres: database,
    close: async () => {
      await database.stop();
      data.remove();
    },
  };
}

/** INSTANCES `textrelay serve` on the database, all on the servers' core. */
function startServers(database: BenchDatabase): Promise<ServerProcess[]> {
  return Promise.all(
    Array.from({ length: INSTANCES }, () =>
      startServer({
        cpu: SERVER_CPU,
        nodeArgs: args['node-arg'],
        env: {
          ...database.env,
          TEXTRELAY_INGEST_SECRET: INGEST_SECRET,
          // Sends are measured up to their hand-over: the sandbox's simulated statuses would come later.
          TEXTRELAY_SANDBOX_STEP_MS: String(24 * 3_600_000),
          // The server's capacity is measured, not the account's quota (6,000 sends a minute by default).
          TEXTRELAY_RATE_LIMIT_PER_MINUTE: '0',
        },
      }),
    ),
  );
}

/** Hands out ranges of ingest targets from `first` on, one range per wrk run. */
function targetAllocator(first: number): (count: number) => number {
  let next = first;
  return (count) => {
    const start = next;
    next += count;
    return start;
  };
}

/** Send and quiet status ingest at each number of connections of the sweep, each level on targets of its own. */
async function sweep(system: System, env: Record<string, string>, targets: Targets): Promise<SweepResult[]> {
  const results: SweepResult[] = [];
  for (const [name, script] of [
    ['send-message', 'send'],
    [QUIET_INGEST, 'ingest'],
  ] as const) {
    for (const connections of SWEEP_CONNECTIONS) {
      log(`sweep: ${name}, ${connections} connection${connections === 1 ? '' : 's'}`);
      const load = { connections, seconds: SWEEP_SECONDS, warmupSeconds: SWEEP_WARMUP_SECONDS, perRun: SWEEP_PER_RUN };
      const measured = await measure(system, script, env, targets, load);
      results.push({
        name,
        connections,
        requestsPerSecond: measured.requestsPerSecond,
        latencyMs: { p50: measured.latencyMs.p50, p99: measured.latencyMs.p99 },
        errors: measured.errors,
        serverCpuMicrosPerRequest: measured.serverCpuMicrosPerRequest,
        ...(measured.databaseCpuMicrosPerRequest === undefined
          ? {}
          : { databaseCpuMicrosPerRequest: measured.databaseCpuMicrosPerRequest }),
        ...(measured.stolenCpu === undefined ? {} : { stolenCpu: measured.stolenCpu }),
      });
    }
  }
  return results;
}

async function measureServer(dir: string, database: BenchDatabase) {
  const { seeded } = database;
  // Each run of a scenario that writes takes fresh targets: messages to move (the ones with a
  // callback first, the quiet ones after them) and end users no run has sent to.
  const sendFirst = targetAllocator(0);
  const targets: Targets = { ingest: targetAllocator(0), send: sendFirst };
  const quietTargets: Targets = { ingest: targetAllocator(CALLBACK_TARGETS), send: sendFirst };
  const pathsFile = join(dir, 'listing-paths.txt');
  writeFileSync(pathsFile, `${listingPaths(seeded).join('\n')}\n`);
  const v2PathsFile = join(dir, 'listing-v2-paths.txt');
  writeFileSync(v2PathsFile, '/api/v2/messages?limit=50\n');
  const servers = await startServers(database);
  const system: System = { servers, databaseCpuSeconds: database.postgres?.cpuSeconds };
  const env = {
    BENCH_API_KEY_ID: seeded.apiKeyId,
    BENCH_API_SECRET: seeded.apiSecret,
    BENCH_INGEST_SECRET: INGEST_SECRET,
    BENCH_PATHS_FILE: pathsFile,
  };
  try {
    const scenarios: Record<string, Measured> = {};
    if (!listingsOnly) {
      log(QUIET_INGEST);
      scenarios.quietIngest = await measure(system, 'ingest', env, quietTargets);
      log('status ingest');
      scenarios.ingest = await measure(system, 'ingest', env, targets);
      log('send-message');
      scenarios.send = await measure(system, 'send', env, targets);
      log('message listing');
      scenarios.listing = await measure(system, 'listing', env, targets);
    }
    // At saturation a listing's latency is mostly its wait behind the others in the queue: its
    // own cost shows with few clients.
    log(LISTING_LATENCY);
    scenarios.listingLatency = await measure(system, 'listing', env, targets, {
      ...SCENARIO_LOAD,
      connections: LISTING_LATENCY_CONNECTIONS,
    });
    // One client: no queue at all, a listing's latency on a server that is not saturated.
    log(LISTING_ALONE);
    scenarios.listingAlone = await measure(system, 'listing', env, targets, { ...SCENARIO_LOAD, connections: 1 });
    log(LISTING_V2);
    scenarios.listingV2 = await measure(system, 'listing', { ...env, BENCH_PATHS_FILE: v2PathsFile }, targets, {
      ...SCENARIO_LOAD,
      connections: LISTING_LATENCY_CONNECTIONS,
    });
    if (!listingsOnly) {
      log('mixed load');
      scenarios.mixed = await measure(system, 'mixed', env, targets);
    }
    // After every other scenario: the sweep's sends would otherwise add to the listings' data.
    const sweepResults = listingsOnly ? [] : await sweep(system, env, quietTargets);
    if (database.postgres) await waitForOutboxDrained(database.postgres.url, log);
    return { seeded, scenarios, sweep: sweepResults, peakRssMb: Math.max(...servers.map((server) => peakRssMb(server.pid))) };
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
  }
}

function commit(): string {
  const hash = execSync('git rev-parse --short HEAD', { cwd: REPO_ROOT }).toString().trim();
  // The results a run writes are not changes to what it measures.
  const dirty = execSync("git status --porcelain -- src bench ':!bench/results'", { cwd: REPO_ROOT }).toString().trim() !== '';
  return dirty ? `${hash}+changes` : hash;
}

type ServerFigures = Awaited<ReturnType<typeof measureServer>>;

/** The figures of every scenario, in the order of the tables. */
function scenarioResults(bare: LoadResult, floor: LoadResult, server: ServerFigures): ScenarioResult[] {
  const scenario = (name: string, load: LoadResult & { serverCpu?: number; serverPeakRssMb?: number }): ScenarioResult => ({
    name,
    ...load,
    ratioToBare: Number((load.requestsPerSecond / bare.requestsPerSecond).toFixed(2)),
  });
  return [
    scenario('bare node:http', bare),
    scenario(FRAMEWORK_FLOOR, floor),
    scenario(QUIET_INGEST, server.scenarios.quietIngest!),
    scenario('status ingest', server.scenarios.ingest!),
    scenario('send-message', server.scenarios.send!),
    scenario('message listing', server.scenarios.listing!),
    scenario(LISTING_LATENCY, server.scenarios.listingLatency!),
    scenario(LISTING_ALONE, server.scenarios.listingAlone!),
    scenario(LISTING_V2, server.scenarios.listingV2!),
    scenario('mixed', server.scenarios.mixed!),
  ];
}

function machine(): BenchReport['machine'] {
  return {
    cpus: `${cpus().length} x ${cpus()[0]?.model ?? 'unknown'}`,
    memoryGb: Math.round(totalmem() / 1e9),
    loadAverageAtEnd: loadAverage(),
    node: process.version,
    wrk: execSync('wrk --version 2>&1 || true').toString().split('\n')[0]!.trim(),
    pinned: CAN_PIN,
  };
}

const loadAverage = () => loadavg().map((load) => Number(load.toFixed(2)));

async function postgresFacts(url: string) {
  const client = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const [row] = await client`select current_setting('server_version') as version, pg_database_size(current_database())::bigint as bytes`;
    return { version: String(row!.version), databaseMb: Math.round(Number(row!.bytes) / 1e6) };
  } finally {
    await client.end();
  }
}

/** The PostgreSQL run: dispatch by the servers' own dispatchers, figures to postgres.{json,md}. */
async function finishPostgres(
  database: BenchDatabase & { postgres: BenchPostgres },
  figures: { bare: LoadResult; floor: LoadResult; postgresFloor: PostgresFloor; server: ServerFigures; loadAverageAtStart: number[] },
): Promise<void> {
  log(`webhook dispatch (${INSTANCES} dispatcher${INSTANCES === 1 ? '' : 's'})`);
  const dispatch = await measurePostgresDispatch({
    url: database.postgres.url,
    messageCount: DISPATCH_MESSAGES,
    startServers: () => startServers(database),
    databaseCpuSeconds: database.postgres.cpuSeconds,
    receiverCpu: GENERATOR_CPU,
  });
  const facts = await postgresFacts(database.postgres.url);
  const report: PostgresReport = {
    backend: 'postgres',
    instances: INSTANCES,
    date: new Date().toISOString(),
    commit: commit(),
    quick,
    machine: machine(),
    pinning: CAN_PIN
      ? `textrelay (${INSTANCES === 1 ? 'the serve process' : `all ${INSTANCES} serve processes`}) and PostgreSQL on core 0, wrk${INSTANCES === 1 ? '' : ` (${INSTANCES} processes)`}, the callback sink's and dispatch receiver on core 1`
      : 'unpinned',
    loadAverageAtStart: figures.loadAverageAtStart,
    settings: { seconds: SECONDS, warmupSeconds: WARMUP_SECONDS, connections: CONNECTIONS, wrkThreads: THREADS },
    seededMessages: figures.server.seeded.messages,
    serverPeakRssMb: figures.server.peakRssMb,
    scenarios: scenarioResults(figures.bare, figures.floor, figures.server).map((scenario) => ({
      ...scenario,
      ratioToPostgresFloor: Number((scenario.requestsPerSecond / figures.postgresFloor.transactionsPerSecond).toFixed(3)),
    })),
    postgresFloor: figures.postgresFloor,
    sweep: figures.server.sweep,
    sweepSettings: SWEEP_SETTINGS,
    postgres: {
      version: facts.version,
      settings: POSTGRES_SETTINGS,
      poolSizePerInstance: SERVER_POOL_SIZE,
      databaseMb: facts.databaseMb,
    },
    dispatch,
    postgresProblems: database.postgres.problems(),
  };
  // A smoke run keeps to files of its own (not committed): postgres.json holds the full runs of each number of instances.
  const name = quick ? 'postgres-quick' : 'postgres';
  const results = recordPostgresReport(new URL(`${name}.json`, RESULTS), report);
  const sqliteFile = new URL('latest.json', RESULTS);
  const sqlite = existsSync(sqliteFile) ? (JSON.parse(readFileSync(sqliteFile, 'utf8')) as BenchReport) : undefined;
  const markdown = renderPostgresResults(results, sqlite);
  writeFileSync(new URL(`${name}.md`, RESULTS), markdown);
  console.log(markdown);
}

/**
 * PostgreSQL's own rate for a send-shaped transaction, before the servers start: one client per
 * instance where the instance runs, with its pool and its share of the scenarios' in-flight requests.
 */
async function measureFloorOfPostgres(database: BenchPostgres): Promise<PostgresFloor> {
  log(`PostgreSQL floor: three one-row inserts a transaction, postgres.js, ${CONNECTIONS} in flight, a pool of ${SERVER_POOL_SIZE}`);
  return measurePostgresFloor({
    url: database.url,
    clients: INSTANCES,
    inFlight: CONNECTIONS,
    poolSize: SERVER_POOL_SIZE,
    warmupSeconds: WARMUP_SECONDS,
    seconds: SECONDS,
    cpu: SERVER_CPU,
    databaseCpuSeconds: database.cpuSeconds,
  });
}

function calibrateBare(): Promise<LoadResult> {
  log(`calibration: bare node:http (${CAN_PIN ? 'server on core 0, wrk on core 1' : 'unpinned'})`);
  return calibrate('bare-server', 'bare');
}

/** `--only listings`: each listing scenario against the framework floor of the same run, with the server's CPU per request. */
function printListings(floor: LoadResult, server: ServerFigures): void {
  const rows = [
    [FRAMEWORK_FLOOR, floor],
    [LISTING_LATENCY, server.scenarios.listingLatency!],
    [LISTING_ALONE, server.scenarios.listingAlone!],
    [LISTING_V2, server.scenarios.listingV2!],
  ] as const;
  const perRequest = (load: LoadResult, cpu: number | undefined) =>
    cpu === undefined ? '' : ((cpu * 1e6) / load.requestsPerSecond).toFixed(0);
  console.log(
    '| scenario | requests/s | p50 ms | p99 ms | ratio to the floor | server CPU µs per request | PostgreSQL CPU µs per request |\n' +
      '|---|---:|---:|---:|---:|---:|---:|',
  );
  for (const [name, load] of rows) {
    const measured = 'serverCpu' in load ? load : undefined;
    const ratio = (load.requestsPerSecond / floor.requestsPerSecond).toFixed(2);
    console.log(
      `| ${name} | ${load.requestsPerSecond.toFixed(0)} | ${load.latencyMs.p50} | ${load.latencyMs.p99} | ${ratio} ` +
        `| ${perRequest(load, measured?.serverCpu)} | ${perRequest(load, measured?.databaseCpu)} |`,
    );
  }
  console.log(`load average ${loadAverage().join(' ')}, peak RSS ${server.peakRssMb} MB`);
}

async function main(): Promise<void> {
  ensureWrk();
  const loadAverageAtStart = loadAverage();
  const dir = mkdtempSync(join(tmpdir(), 'textrelay-bench-'));
  const sink = await startSink();
  let database: BenchDatabase | undefined;
  try {
    // --only listings compares builds against the floor alone.
    const bare = listingsOnly ? undefined : await calibrateBare();
    log('framework floor: the same stack, validation only');
    const floor = await calibrate('framework-floor', 'ingest');
    database = await openBenchDatabase(dir, sink.url);
    const postgresFloor = database.postgres && !listingsOnly ? await measureFloorOfPostgres(database.postgres) : undefined;
    const server = await measureServer(dir, database);
    if (bare === undefined) {
      printListings(floor, server);
      return;
    }
    if (database.postgres) {
      await finishPostgres(
        { ...database, postgres: database.postgres },
        { bare, floor, postgresFloor: postgresFloor!, server, loadAverageAtStart },
      );
      return;
    }
    log('webhook dispatch');
    // The dispatcher runs in this process: it takes the server's core, the receiver wrk's.
    if (SERVER_CPU !== undefined) pinProcess(SERVER_CPU);
    const dispatch = await measureDispatch(DISPATCH_MESSAGES, { receiverCpu: GENERATOR_CPU });

    const report: BenchReport = {
      date: new Date().toISOString(),
      commit: commit(),
      quick,
      machine: machine(),
      settings: { seconds: SECONDS, warmupSeconds: WARMUP_SECONDS, connections: CONNECTIONS, wrkThreads: THREADS },
      seededMessages: server.seeded.messages,
      databaseMbPerMillionMessages: Math.round(((server.seeded.bytes / server.seeded.messages) * 1e6) / 1e6),
      serverPeakRssMb: server.peakRssMb,
      scenarios: scenarioResults(bare, floor, server),
      sweep: server.sweep,
      sweepSettings: SWEEP_SETTINGS,
      dispatch,
      targets: [],
    };
    report.targets = TARGETS.map((target) => target.check(report));
    writeFileSync(new URL('latest.json', RESULTS), `${JSON.stringify(report, null, 2)}\n`);
    writeFileSync(new URL('latest.md', RESULTS), renderTable(report));
    writeFileSync(new URL('latest.svg', RESULTS), renderChart(report));
    console.log(renderTable(report));
  } finally {
    sink.close();
    await database?.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
