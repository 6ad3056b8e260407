/**
 * The figures of `npm run bench -- --backend postgres`, one run per number of instances, kept
 * side by side in results/postgres.json, and their markdown beside the SQLite run of latest.json.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { PostgresDispatchMeasure } from './postgres-dispatch.ts';
import type { PostgresFloor } from './postgres-floor.ts';
import { type BenchReport, renderSweep } from './report.ts';

export type PostgresReport = Omit<BenchReport, 'dispatch' | 'targets' | 'databaseMbPerMillionMessages' | 'sweep' | 'sweepSettings'> & {
  backend: 'postgres';
  instances: number;
  /** What ran on which core. */
  pinning: string;
  loadAverageAtStart: number[];
  postgres: { version: string; settings: Record<string, string>; poolSizePerInstance: number; databaseMb: number };
  dispatch: PostgresDispatchMeasure;
  /** Errors and warnings PostgreSQL logged during the run. */
  postgresProblems: string[];
  /** Absent from runs recorded before they were measured. */
  postgresFloor?: PostgresFloor;
  sweep?: BenchReport['sweep'];
  sweepSettings?: BenchReport['sweepSettings'];
};

/** The floor's row of the run's table, in its columns (the floor's client where textrelay's CPU goes). */
function floorRow(floor: PostgresFloor): string {
  return `| ${POSTGRES_FLOOR} | ${number(floor.transactionsPerSecond)} transactions/s | ${floor.latencyMs.p50} | ${floor.latencyMs.p99} | ${floor.errors} | ${floor.clientCpu} (client) | ${floor.databaseCpu} | — | — | 1.00 |`;
}

/** The scenario-table name of the PostgreSQL floor. */
export const POSTGRES_FLOOR = 'PostgreSQL floor (postgres.js, a transaction of three one-row inserts)';

/** Runs by number of instances ("1", "2"). */
type PostgresResults = Record<string, PostgresReport>;

const number = (value: number) => value.toLocaleString('en-US');

/** Adds `report` to the results file under its number of instances, replacing the previous run of that number. */
export function recordPostgresReport(file: URL, report: PostgresReport): PostgresResults {
  const results: PostgresResults = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {};
  results[String(report.instances)] = report;
  writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
  return results;
}

const floorRatio = (report: PostgresReport, name: string) =>
  report.scenarios.find((s) => s.name === name)?.ratioToPostgresFloor?.toFixed(3) ?? '—';

function runTable(report: PostgresReport): string[] {
  const m = report.machine;
  const floor = report.postgresFloor;
  return [
    `## ${report.instances} instance${report.instances === 1 ? '' : 's'}: ${report.date.slice(0, 16).replace('T', ' ')} UTC, commit ${report.commit}${report.quick ? ' (quick smoke run: not for comparison)' : ''}`,
    '',
    `Machine: ${m.cpus}, ${m.memoryGb} GB, Node ${m.node}, ${m.wrk}; ${report.pinning}; load average at the start ${report.loadAverageAtStart.join(' / ')}, at the end ${m.loadAverageAtEnd.join(' / ')}.`,
    `PostgreSQL ${report.postgres.version} (${Object.entries(report.postgres.settings)
      .map(([name, value]) => `${name}=${value}`)
      .join(
        ', ',
      )}; fsync, synchronous_commit, full_page_writes on), a pool of ${report.postgres.poolSizePerInstance} per instance. Load: ${report.settings.connections} keep-alive connections in all, ${report.settings.seconds} s per scenario after ${report.settings.warmupSeconds} s of warm-up. Database: ${number(report.seededMessages)} seeded messages, ${number(report.postgres.databaseMb)} MB at the end; server peak RSS ${report.serverPeakRssMb} MB (largest instance).`,
    '',
    'CPU columns are in cores (CPU seconds per second of the measured run): textrelay is the sum over the serve processes, PostgreSQL the postmaster and every process it forked.',
    ...(floor === undefined
      ? []
      : [
          '',
          `${POSTGRES_FLOOR}: what this PostgreSQL commits at all, measured before the servers start: ${floor.clients === 1 ? 'a client process' : `${floor.clients} client processes`} on the serve process's core, through postgres.js with a pool of ${floor.poolSizePerClient} and ${floor.inFlightPerClient} transactions in flight${floor.clients === 1 ? '' : ' each'}, each transaction three one-row inserts into tables of its own; same server, same settings. **send-message: ${floorRatio(report, 'send-message')} of the PostgreSQL floor.**`,
        ]),
    '',
    `| scenario | requests/s | p50 ms | p99 ms | errors | textrelay CPU | PostgreSQL CPU | wrk CPU | CPU stolen |${floor === undefined ? '' : ' ratio to PostgreSQL floor |'}`,
    `|---|---:|---:|---:|---:|---:|---:|---:|---:|${floor === undefined ? '' : '---:|'}`,
    ...(floor === undefined ? [] : [floorRow(floor)]),
    ...report.scenarios.map(
      (s) =>
        `| ${s.name} | ${number(s.requestsPerSecond)} | ${s.latencyMs.p50} | ${s.latencyMs.p99} | ${s.errors} | ${s.serverCpu ?? '—'} | ${s.databaseCpu ?? '—'} | ${s.generatorCpu} | ${s.stolenCpu === undefined ? '—' : `${Math.round(s.stolenCpu * 100)}%`} |${floor === undefined ? '' : ` ${s.ratioToPostgresFloor?.toFixed(3) ?? '—'} |`}`,
    ),
    `| webhook dispatch (${number(report.dispatch.deliveries)} callbacks) | ${number(report.dispatch.deliveriesPerSecond)} deliveries/s | — | — | ${report.dispatch.failed} failed | ${report.dispatch.serverCpu} | ${report.dispatch.databaseCpu} | — | — |${floor === undefined ? '' : ' — |'}`,
    '',
    ...(report.sweep === undefined || report.sweepSettings === undefined
      ? []
      : renderSweep(report.sweep, report.sweepSettings, 'textrelay')),
    report.postgresProblems.length === 0
      ? 'PostgreSQL logged no error or warning.'
      : `PostgreSQL logged:\n\n${report.postgresProblems.map((line) => `    ${line}`).join('\n')}`,
    '',
  ];
}

/** Requests/s of the SQLite run (latest.json), one and two instances on PostgreSQL, and two over one. */
function comparison(results: PostgresResults, sqlite: BenchReport | undefined): string[] {
  const one = results['1'];
  const two = results['2'];
  const rate = (report: { scenarios: { name: string; requestsPerSecond: number }[] } | undefined, name: string) =>
    report?.scenarios.find((s) => s.name === name)?.requestsPerSecond;
  const names = (one ?? two)!.scenarios.map((s) => s.name);
  const cell = (value: number | undefined) => (value === undefined ? '—' : number(value));
  const ratio = (a: number | undefined, b: number | undefined) => (a === undefined || b === undefined ? '—' : (a / b).toFixed(2));
  const sqliteLabel = sqlite ? `SQLite (latest.json, ${sqlite.date.slice(0, 16).replace('T', ' ')})` : 'SQLite';
  return [
    '## Side by side (requests/s)',
    '',
    `| scenario | ${sqliteLabel} | PostgreSQL, 1 instance | PostgreSQL, 2 instances | 2 over 1 |`,
    '|---|---:|---:|---:|---:|',
    ...(one?.postgresFloor === undefined && two?.postgresFloor === undefined
      ? []
      : [
          `| ${POSTGRES_FLOOR} (transactions/s) | — | ${cell(one?.postgresFloor?.transactionsPerSecond)} | ${cell(two?.postgresFloor?.transactionsPerSecond)} | ${ratio(two?.postgresFloor?.transactionsPerSecond, one?.postgresFloor?.transactionsPerSecond)} |`,
        ]),
    ...names.map(
      (name) =>
        `| ${name} | ${cell(rate(sqlite, name))} | ${cell(rate(one, name))} | ${cell(rate(two, name))} | ${ratio(rate(two, name), rate(one, name))} |`,
    ),
    `| webhook dispatch (deliveries/s) | ${cell(sqlite?.dispatch.deliveriesPerSecond)} | ${cell(one?.dispatch.deliveriesPerSecond)} | ${cell(two?.dispatch.deliveriesPerSecond)} | ${ratio(two?.dispatch.deliveriesPerSecond, one?.dispatch.deliveriesPerSecond)} |`,
    '',
  ];
}

export function renderPostgresResults(results: PostgresResults, sqlite: BenchReport | undefined): string {
  return ['# Benchmark on PostgreSQL', '', ...comparison(results, sqlite), ...Object.values(results).flatMap(runTable)].join('\n');
}
