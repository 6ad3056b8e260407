/** The figures of one `npm run bench`, the targets they are held to, and their markdown table. */
import type { DispatchMeasure } from './dispatch.ts';
import type { LoadResult } from './wrk.ts';

export type ScenarioResult = LoadResult & {
  name: string;
  ratioToBare: number;
  serverCpu?: number;
  databaseCpu?: number;
  /** The server's peak RSS at the end of this scenario (and every one before it). */
  serverPeakRssMb?: number;
  /** CPU time of the server (of PostgreSQL) over the measured run, per request it completed, in µs. */
  serverCpuMicrosPerRequest?: number;
  databaseCpuMicrosPerRequest?: number;
  /** Requests/s over the transactions/s of the PostgreSQL floor of the same run (PostgreSQL runs only). */
  ratioToPostgresFloor?: number;
};

/** Connections of the concurrency sweep: what a request costs and waits from one client to many. */
export const SWEEP_CONNECTIONS = [1, 8, 32, 128] as const;

/** One level of the concurrency sweep of one scenario. */
export type SweepResult = {
  name: string;
  connections: number;
  requestsPerSecond: number;
  latencyMs: { p50: number; p99: number };
  errors: number;
  serverCpuMicrosPerRequest: number;
  databaseCpuMicrosPerRequest?: number;
  stolenCpu?: number;
};

export type TargetCheck = { target: string; measured: string; met: boolean };

export type BenchReport = {
  date: string;
  commit: string;
  quick: boolean;
  machine: { cpus: string; memoryGb: number; loadAverageAtEnd: number[]; node: string; wrk: string; pinned: boolean };
  settings: { seconds: number; warmupSeconds: number; connections: number; wrkThreads: number };
  seededMessages: number;
  databaseMbPerMillionMessages: number;
  serverPeakRssMb: number;
  scenarios: ScenarioResult[];
  /** Send and status ingest at each of SWEEP_CONNECTIONS, shorter runs than the scenarios'. */
  sweep: SweepResult[];
  sweepSettings: { seconds: number; warmupSeconds: number };
  dispatch: DispatchMeasure;
  targets: TargetCheck[];
};

function scenarioNamed(report: BenchReport, name: string): ScenarioResult {
  const found = report.scenarios.find((scenario) => scenario.name === name);
  if (!found) throw new Error(`no scenario ${name}`);
  return found;
}

/** Clients of the listing-latency scenario, whose p99 the 20 ms target is about. */
export const LISTING_LATENCY_CONNECTIONS = 4;
export const LISTING_LATENCY = `message listing, ${LISTING_LATENCY_CONNECTIONS} connections`;
/** Shown beside it: one client, so no request waits behind another. */
export const LISTING_ALONE = 'message listing, 1 connection';
/** The SDK's messages.list: GET /api/v2/messages?limit=50, unfiltered, with its total. */
export const LISTING_V2 = `v2 message listing, ${LISTING_LATENCY_CONNECTIONS} connections`;
/** The framework alone validating a status callback (bench/framework-floor.ts): the most any route can reach. */
export const FRAMEWORK_FLOOR = 'framework floor (hono + zod, no database)';

/** Status ingest of events whose message has no status callback: the event and its transition alone. */
export const QUIET_INGEST = 'status ingest, no callback';

/** A scenario's requests/s over the framework floor's of the same run. */
const ofFloor = (r: BenchReport, name: string) =>
  scenarioNamed(r, name).requestsPerSecond / scenarioNamed(r, FRAMEWORK_FLOOR).requestsPerSecond;

const floorShareAtLeast = (name: string, least: number) => ({
  check: (r: BenchReport): TargetCheck => ({
    target: `${name} ≥ ${least.toFixed(2)} of the framework floor`,
    measured: ofFloor(r, name).toFixed(2),
    met: ofFloor(r, name) >= least,
  }),
});

const listingAtLeast = (name: string) => ({
  check: (r: BenchReport): TargetCheck => {
    const p99 = scenarioNamed(r, name).latencyMs.p99;
    return {
      target: `${name}: ≥ 0.30 of the framework floor, p99 ≤ 5 ms at ${r.seededMessages.toLocaleString('en-US')} messages`,
      measured: `${ofFloor(r, name).toFixed(2)}, ${p99} ms`,
      met: ofFloor(r, name) >= 0.3 && p99 <= 5,
    };
  },
});

/** Issue 36's targets on SQLite, as shares of the framework floor (or bare undici) of the same run, the server on one core. */
export const TARGETS: { check: (report: BenchReport) => TargetCheck }[] = [
  floorShareAtLeast(QUIET_INGEST, 0.75),
  floorShareAtLeast('status ingest', 0.5),
  floorShareAtLeast('send-message', 0.5),
  listingAtLeast(LISTING_LATENCY),
  listingAtLeast(LISTING_V2),
  {
    check: (r) => ({
      target: 'webhook dispatch ≥ 0.50 of bare undici',
      measured: r.dispatch.ratioToBare.toFixed(2),
      met: r.dispatch.ratioToBare >= 0.5,
    }),
  },
  { check: (r) => ({ target: 'server peak RSS ≤ 160 MB', measured: `${r.serverPeakRssMb} MB`, met: r.serverPeakRssMb <= 160 }) },
];

const number = (value: number) => value.toLocaleString('en-US');
const stolen = (share: number | undefined) => (share === undefined ? '—' : `${Math.round(share * 100)}%`);

/** The sweep's table: one row per scenario and number of connections. */
export function renderSweep(rows: SweepResult[], settings: BenchReport['sweepSettings'], server: 'server' | 'textrelay'): string[] {
  const database = rows.some((row) => row.databaseCpuMicrosPerRequest !== undefined);
  const whose = server === 'server' ? "the server's" : database ? "textrelay's (and PostgreSQL's)" : "textrelay's";
  return [
    `Concurrency sweep: ${settings.seconds} s measured after ${settings.warmupSeconds} s of warm-up at each number of connections, new end users and handed-over messages at each; CPU per request is ${whose} CPU time over the requests completed.`,
    '',
    `| scenario | connections | requests/s | p50 ms | p99 ms | errors | ${server} CPU µs per request |${database ? ' PostgreSQL CPU µs per request |' : ''} CPU stolen |`,
    `|---|---:|---:|---:|---:|---:|---:|${database ? '---:|' : ''}---:|`,
    ...rows.map(
      (row) =>
        `| ${row.name} | ${row.connections} | ${number(row.requestsPerSecond)} | ${row.latencyMs.p50} | ${row.latencyMs.p99} | ${row.errors} | ${number(row.serverCpuMicrosPerRequest)} |${database ? ` ${row.databaseCpuMicrosPerRequest === undefined ? '—' : number(row.databaseCpuMicrosPerRequest)} |` : ''} ${stolen(row.stolenCpu)} |`,
    ),
    '',
  ];
}

export function renderTable(report: BenchReport): string {
  const m = report.machine;
  const lines = [
    `# Benchmark: ${report.date.slice(0, 16).replace('T', ' ')} UTC, commit ${report.commit}${report.quick ? ' (quick smoke run: not for comparison)' : ''}`,
    '',
    `Machine: ${m.cpus}, ${m.memoryGb} GB, Node ${m.node}, ${m.wrk}; ${m.pinned ? 'server on core 0, load generator on core 1' : 'unpinned'}; load average at the end ${m.loadAverageAtEnd.join(' / ')}.`,
    `Load: ${report.settings.connections} keep-alive connections, ${report.settings.seconds} s per scenario after ${report.settings.warmupSeconds} s of warm-up. Database: ${number(report.seededMessages)} seeded messages, ${number(report.databaseMbPerMillionMessages)} MB per million messages, without callbacks (each callback delivered adds ${number(report.dispatch.deliveryLogBytesPerCallback)} bytes of delivery log, measured in the dispatch scenario, forgotten after TEXTRELAY_DELIVERY_RETENTION_DAYS); server peak RSS ${report.serverPeakRssMb} MB.`,
    '',
    '| scenario | requests/s | p50 ms | p99 ms | ratio to bare | ratio to the framework floor | errors | server CPU | wrk CPU | CPU stolen | peak RSS MB |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...report.scenarios.map(
      (s) =>
        `| ${s.name} | ${number(s.requestsPerSecond)} | ${s.latencyMs.p50} | ${s.latencyMs.p99} | ${s.ratioToBare.toFixed(2)} | ${ofFloor(report, s.name).toFixed(2)} | ${s.errors} | ${s.serverCpu ?? '—'} | ${s.generatorCpu} | ${stolen(s.stolenCpu)} | ${s.serverPeakRssMb ?? '—'} |`,
    ),
    `| webhook dispatch | ${number(report.dispatch.deliveriesPerSecond)} deliveries/s | — | — | ${report.dispatch.ratioToBare.toFixed(2)} of bare undici (${number(report.dispatch.bareUndiciRequestsPerSecond)}/s) | — | ${report.dispatch.failed} | — | — | — | — |`,
    '',
    ...renderSweep(report.sweep, report.sweepSettings, 'server'),
    '| target | measured | met |',
    '|---|---:|:---:|',
    ...report.targets.map((t) => `| ${t.target} | ${t.measured} | ${t.met ? 'yes' : '**no**'} |`),
    '',
    '![Throughput and p99 latency per scenario](latest.svg)',
    '',
  ];
  return lines.join('\n');
}
