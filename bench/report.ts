/** The figures of one `npm run bench`, the targets they are held to, and their markdown table. */
import type { DispatchMeasure } from './dispatch.ts';
import type { LoadResult } from './wrk.ts';

export type ScenarioResult = LoadResult & { name: string; ratioToBare: number; serverCpu?: number; databaseCpu?: number };

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

/** Issue 6's targets for this 2-core machine, as ratios to the bare handler of the same run where they can be. */
export const TARGETS: { check: (report: BenchReport) => TargetCheck }[] = [
  {
    check: (r) => ({
      target: 'status ingest ≥ 0.30 of bare',
      measured: scenarioNamed(r, 'status ingest').ratioToBare.toFixed(2),
      met: scenarioNamed(r, 'status ingest').ratioToBare >= 0.3,
    }),
  },
  {
    check: (r) => ({
      target: 'send-message ≥ 0.40 of bare',
      measured: scenarioNamed(r, 'send-message').ratioToBare.toFixed(2),
      met: scenarioNamed(r, 'send-message').ratioToBare >= 0.4,
    }),
  },
  {
    check: (r) => ({
      target: `listing p99 ≤ 20 ms at ${r.seededMessages.toLocaleString('en-US')} messages (${LISTING_LATENCY_CONNECTIONS} connections)`,
      measured: `${scenarioNamed(r, LISTING_LATENCY).latencyMs.p99} ms`,
      met: scenarioNamed(r, LISTING_LATENCY).latencyMs.p99 <= 20,
    }),
  },
  {
    check: (r) => ({
      target: `v2 listing p99 ≤ 10 ms at ${r.seededMessages.toLocaleString('en-US')} messages (${LISTING_LATENCY_CONNECTIONS} connections)`,
      measured: `${scenarioNamed(r, LISTING_V2).latencyMs.p99} ms`,
      met: scenarioNamed(r, LISTING_V2).latencyMs.p99 <= 10,
    }),
  },
  {
    check: (r) => ({
      target: 'dispatch ≥ 5,000 deliveries/s',
      measured: `${r.dispatch.deliveriesPerSecond}/s`,
      met: r.dispatch.deliveriesPerSecond >= 5000,
    }),
  },
  { check: (r) => ({ target: 'server peak RSS ≤ 250 MB', measured: `${r.serverPeakRssMb} MB`, met: r.serverPeakRssMb <= 250 }) },
];

const number = (value: number) => value.toLocaleString('en-US');

export function renderTable(report: BenchReport): string {
  const m = report.machine;
  const lines = [
    `# Benchmark: ${report.date.slice(0, 16).replace('T', ' ')} UTC, commit ${report.commit}${report.quick ? ' (quick smoke run: not for comparison)' : ''}`,
    '',
    `Machine: ${m.cpus}, ${m.memoryGb} GB, Node ${m.node}, ${m.wrk}; ${m.pinned ? 'server on core 0, load generator on core 1' : 'unpinned'}; load average at the end ${m.loadAverageAtEnd.join(' / ')}.`,
    `Load: ${report.settings.connections} keep-alive connections, ${report.settings.seconds} s per scenario after ${report.settings.warmupSeconds} s of warm-up. Database: ${number(report.seededMessages)} seeded messages, ${number(report.databaseMbPerMillionMessages)} MB per million messages, without callbacks (each callback delivered adds ${number(report.dispatch.deliveryLogBytesPerCallback)} bytes of delivery log, measured in the dispatch scenario, forgotten after TEXTRELAY_DELIVERY_RETENTION_DAYS); server peak RSS ${report.serverPeakRssMb} MB.`,
    '',
    '| scenario | requests/s | p50 ms | p99 ms | ratio to bare | errors | server CPU | wrk CPU | CPU stolen |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...report.scenarios.map(
      (s) =>
        `| ${s.name} | ${number(s.requestsPerSecond)} | ${s.latencyMs.p50} | ${s.latencyMs.p99} | ${s.ratioToBare.toFixed(2)} | ${s.errors} | ${s.serverCpu ?? '—'} | ${s.generatorCpu} | ${s.stolenCpu === undefined ? '—' : `${Math.round(s.stolenCpu * 100)}%`} |`,
    ),
    `| webhook dispatch | ${number(report.dispatch.deliveriesPerSecond)} deliveries/s | — | — | ${report.dispatch.ratioToBare.toFixed(2)} of bare undici (${number(report.dispatch.bareUndiciRequestsPerSecond)}/s) | ${report.dispatch.failed} | — | — | — |`,
    '',
    '| target | measured | met |',
    '|---|---:|:---:|',
    ...report.targets.map((t) => `| ${t.target} | ${t.measured} | ${t.met ? 'yes' : '**no**'} |`),
    '',
    '![Throughput and p99 latency per scenario](latest.svg)',
    '',
  ];
  return lines.join('\n');
}
