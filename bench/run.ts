/**
 * The whole benchmark in one run, so its ratios compare figures taken under the same conditions:
 *
 *   npm run bench                 1,000,000 seeded messages, 10 s per scenario
 *   npm run bench -- --quick      a smoke run: 20,000 messages, 2 s per scenario
 *   npm run bench -- --reseed     rebuild the cached seeded database
 *
 * 1. calibration: wrk against a bare node:http JSON handler (bench/bare-server.ts), then against
 *    the framework alone validating a status callback (bench/framework-floor.ts);
 * 2. a real `textrelay serve` on the seeded database, under wrk: status ingest (unique events),
 *    send-message (unique bodies), message listing (50 rows, filtered), the SDK's v2 listing
 *    (50 rows and their total), a mixed load;
 * 3. webhook dispatch to a local receiver (bench/dispatch.ts).
 * Servers run on core 0 and wrk on core 1 (taskset) when the machine has two cores. Results go
 * to bench/results/latest.{json,md} and latest.svg.
 */
import { execSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { renderChart } from './chart.ts';
import { measureDispatch } from './dispatch.ts';
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
} from './processes.ts';
import {
  type BenchReport,
  FRAMEWORK_FLOOR,
  LISTING_ALONE,
  LISTING_LATENCY,
  LISTING_LATENCY_CONNECTIONS,
  LISTING_V2,
  renderTable,
  type ScenarioResult,
  TARGETS,
} from './report.ts';
import { type SeededAccount, seedDatabase } from './seed.ts';
import { ensureWrk, type LoadResult, runWrk } from './wrk.ts';

const { values: args } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    reseed: { type: 'boolean', default: false },
    connections: { type: 'string', default: '32' },
    /** Server flags, e.g. --node-arg=--cpu-prof to profile the server under the same load. */
    'node-arg': { type: 'string', multiple: true, default: [] },
  },
});

const quick = args.quick;
const plan = quick ? { messages: 20_000, endUsers: 300, groups: 20 } : { messages: 1_000_000, endUsers: 2_000, groups: 100 };
const SECONDS = quick ? 2 : 10;
const WARMUP_SECONDS = quick ? 1 : 3;
const DISPATCH_MESSAGES = quick ? 500 : 5_000;
const CONNECTIONS = Number(args.connections);
const THREADS = 1;
const SERVER_CPU = CAN_PIN ? 0 : undefined;
const GENERATOR_CPU = CAN_PIN ? 1 : undefined;
const INGEST_SECRET = 'bench-ingest-secret';
/** Status events one wrk run may send at most (per thread): each needs a seeded message to apply to. */
const INGEST_PER_RUN = 10_000 * SECONDS;
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
 * Messages the ingest scenarios move to SENT: QUEUED, handed over as ingest-<n>, with a status
 * callback to the sink, so every applied event also writes its callback as in production. Dated
 * before the seeded history: newest-first listings filtered on a column without an index of its
 * own (is_outbound) would otherwise walk through all of them before reaching the seeded rows.
 */
function addIngestTargets(file: string, count: number, callbackUrl: string): void {
  const db = new Database(file);
  db.prepare(`
    with recursive n(i) as (select 0 union all select i + 1 from n where i < cast(? as integer) - 1)
    insert into messages (handle, account_id, is_outbound, message_type, status, line_number, number, contact_id, status_callback, transport_handle, handed_over_at, date_sent, date_updated)
    select 'ingest-' || i, t.account_id, 1, 'message', 'QUEUED', t.line_number, t.number, t.contact_id, ?, 'ingest-' || i, t.first - 1 - i, t.first - 1 - i, t.first - 1 - i
    from n, (select *, (select min(date_sent) from messages) as first from messages where message_type = 'message' and is_outbound = 1 order by id desc limit 1) t`).run(
    count,
    callbackUrl,
  );
  db.close();
}

/** Listing paths: 50 rows each, filtered by number, contact, group, status, date and direction in turn. */
function listingPaths(seeded: SeededAccount): string[] {
  const since = new Date(seeded.lastDateSent - 3_600_000).toISOString().slice(0, 19).replace('T', ' ');
  const paths: string[] = [];
  for (let i = 0; i < 200; i += 1) {
    const filters: Record<string, string>[] = [
      { number: seeded.numbers[(i * 37) % seeded.numbers.length]! },
      { cid: seeded.contactIds[(i * 53) % seeded.contactIds.length]! },
      { group_id: seeded.groupIds[i % seeded.groupIds.length]! },
      { status: ['DELIVERED', 'READ', 'ERROR', 'SENT'][i % 4]! },
      { number: seeded.numbers[(i * 11) % seeded.numbers.length]!, from_date: since },
      { is_outbound: i % 2 === 0 ? 'true' : 'false' },
    ];
    paths.push(`/accounts/messages?${new URLSearchParams({ ...filters[i % filters.length], limit: '50' })}`);
  }
  return paths;
}

/** A warm-up run, then the measured one; status events of each go to their own range of targets. */
async function measure(
  server: ServerProcess,
  script: 'ingest' | 'send' | 'listing' | 'mixed',
  env: Record<string, string>,
  ingestFirst: () => number,
  connections = CONNECTIONS,
): Promise<LoadResult & { serverCpu: number }> {
  const load = { script, url: server.url, connections, threads: THREADS, cpu: GENERATOR_CPU } as const;
  const sendsEvents = script === 'ingest' || script === 'mixed';
  const runEnv = (run: string) => ({
    ...env,
    BENCH_STRIDE: String(INGEST_PER_RUN),
    BENCH_RUN: run,
    BENCH_INGEST_FIRST: String(sendsEvents ? ingestFirst() : 0),
  });
  await runWrk({ ...load, seconds: WARMUP_SECONDS, env: runEnv(`${script}-warmup`) });
  const cpuBefore = cpuSeconds(server.pid);
  const result = await runWrk({ ...load, seconds: SECONDS, env: runEnv(`${script}-run`) });
  return { ...result, serverCpu: Number(((cpuSeconds(server.pid) - cpuBefore) / result.seconds).toFixed(2)) };
}

async function measureServer(dir: string) {
  const file = join(dir, 'bench.db');
  const seeded = await seedDatabase(file, plan, { fresh: args.reseed, log });
  const sink = await startSink();
  // Four wrk runs send status events (ingest and mixed, each with a warm-up): each gets its own targets.
  const ingestRuns = 4;
  addIngestTargets(file, ingestRuns * INGEST_PER_RUN * THREADS, sink.url);
  let nextIngest = 0;
  const ingestFirst = () => {
    const first = nextIngest;
    nextIngest += INGEST_PER_RUN * THREADS;
    return first;
  };
  const pathsFile = join(dir, 'listing-paths.txt');
  writeFileSync(pathsFile, `${listingPaths(seeded).join('\n')}\n`);
  const v2PathsFile = join(dir, 'listing-v2-paths.txt');
  writeFileSync(v2PathsFile, '/api/v2/messages?limit=50\n');
  const server = await startServer({
    cpu: SERVER_CPU,
    nodeArgs: args['node-arg'],
    env: {
      TEXTRELAY_DB: file,
      TEXTRELAY_INGEST_SECRET: INGEST_SECRET,
      // Sends are measured up to their hand-over: the sandbox's simulated statuses would come later.
      TEXTRELAY_SANDBOX_STEP_MS: String(24 * 3_600_000),
      // The server's capacity is measured, not the account's quota (6,000 sends a minute by default).
      TEXTRELAY_RATE_LIMIT_PER_MINUTE: '0',
    },
  });
  const env = {
    BENCH_API_KEY_ID: seeded.apiKeyId,
    BENCH_API_SECRET: seeded.apiSecret,
    BENCH_INGEST_SECRET: INGEST_SECRET,
    BENCH_PATHS_FILE: pathsFile,
  };
  try {
    const scenarios: Record<string, LoadResult & { serverCpu: number }> = {};
    log('status ingest');
    scenarios.ingest = await measure(server, 'ingest', env, ingestFirst);
    log('send-message');
    scenarios.send = await measure(server, 'send', { ...env, BENCH_SEND_AREA: '212' }, ingestFirst);
    log('message listing');
    scenarios.listing = await measure(server, 'listing', env, ingestFirst);
    // At saturation a listing's latency is mostly its wait behind the others in the queue: its
    // own cost shows with few clients.
    log(LISTING_LATENCY);
    scenarios.listingLatency = await measure(server, 'listing', env, ingestFirst, LISTING_LATENCY_CONNECTIONS);
    // One client: no queue at all, a listing's latency on a server that is not saturated.
    log(LISTING_ALONE);
    scenarios.listingAlone = await measure(server, 'listing', env, ingestFirst, 1);
    log(LISTING_V2);
    scenarios.listingV2 = await measure(
      server,
      'listing',
      { ...env, BENCH_PATHS_FILE: v2PathsFile },
      ingestFirst,
      LISTING_LATENCY_CONNECTIONS,
    );
    log('mixed load');
    scenarios.mixed = await measure(server, 'mixed', { ...env, BENCH_SEND_AREA: '718' }, ingestFirst);
    return { seeded, scenarios, peakRssMb: peakRssMb(server.pid), fileBytes: statSync(file).size };
  } finally {
    await server.stop();
    sink.close();
  }
}

function commit(): string {
  const hash = execSync('git rev-parse --short HEAD', { cwd: REPO_ROOT }).toString().trim();
  const dirty = execSync('git status --porcelain -- src bench', { cwd: REPO_ROOT }).toString().trim() !== '';
  return dirty ? `${hash}+changes` : hash;
}

async function main(): Promise<void> {
  ensureWrk();
  const dir = mkdtempSync(join(tmpdir(), 'textrelay-bench-'));
  try {
    log(`calibration: bare node:http (${CAN_PIN ? 'server on core 0, wrk on core 1' : 'unpinned'})`);
    const bare = await calibrate('bare-server', 'bare');
    log('framework floor: the same stack, validation only');
    const floor = await calibrate('framework-floor', 'ingest');
    const server = await measureServer(dir);
    log('webhook dispatch');
    // The dispatcher runs in this process: it takes the server's core, the receiver wrk's.
    if (SERVER_CPU !== undefined) pinProcess(SERVER_CPU);
    const dispatch = await measureDispatch(DISPATCH_MESSAGES, { receiverCpu: GENERATOR_CPU });

    const ratio = (rps: number) => Number((rps / bare.requestsPerSecond).toFixed(2));
    const scenario = (name: string, load: LoadResult & { serverCpu?: number }): ScenarioResult => ({
      name,
      ...load,
      ratioToBare: ratio(load.requestsPerSecond),
    });
    const report: BenchReport = {
      date: new Date().toISOString(),
      commit: commit(),
      quick,
      machine: {
        cpus: `${cpus().length} x ${cpus()[0]?.model ?? 'unknown'}`,
        memoryGb: Math.round(totalmem() / 1e9),
        loadAverageAtEnd: loadavg().map((load) => Number(load.toFixed(2))),
        node: process.version,
        wrk: execSync('wrk --version 2>&1 || true').toString().split('\n')[0]!.trim(),
        pinned: CAN_PIN,
      },
      settings: { seconds: SECONDS, warmupSeconds: WARMUP_SECONDS, connections: CONNECTIONS, wrkThreads: THREADS },
      seededMessages: server.seeded.messages,
      databaseMbPerMillionMessages: Math.round(((server.seeded.bytes / server.seeded.messages) * 1e6) / 1e6),
      serverPeakRssMb: server.peakRssMb,
      scenarios: [
        scenario('bare node:http', bare),
        scenario(FRAMEWORK_FLOOR, floor),
        scenario('status ingest', server.scenarios.ingest!),
        scenario('send-message', server.scenarios.send!),
        scenario('message listing', server.scenarios.listing!),
        scenario(LISTING_LATENCY, server.scenarios.listingLatency!),
        scenario(LISTING_ALONE, server.scenarios.listingAlone!),
        scenario(LISTING_V2, server.scenarios.listingV2!),
        scenario('mixed', server.scenarios.mixed!),
      ],
      dispatch,
      targets: [],
    };
    report.targets = TARGETS.map((target) => target.check(report));
    writeFileSync(new URL('latest.json', RESULTS), `${JSON.stringify(report, null, 2)}\n`);
    writeFileSync(new URL('latest.md', RESULTS), renderTable(report));
    writeFileSync(new URL('latest.svg', RESULTS), renderChart(report));
    console.log(renderTable(report));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
