/**
 * One client of the PostgreSQL floor (bench/postgres-floor.ts), a process of its own on the serve
 * process's core: keeps BENCH_FLOOR_IN_FLIGHT transactions of three one-row inserts going through a
 * postgres.js pool of BENCH_FLOOR_POOL connections from its start (the warm-up), counts those that
 * complete in the BENCH_FLOOR_SECONDS after a line on stdin, prints them as FLOOR_JSON and exits.
 */
import { createInterface } from 'node:readline';
import postgres from 'postgres';
import { insertThree } from './three-inserts.ts';

const setting = (name: string) => {
  const value = process.env[name];
  if (value === undefined) throw new Error(`${name} is not set`);
  return value;
};

const sql = postgres(setting('BENCH_FLOOR_URL'), {
  max: Number(setting('BENCH_FLOOR_POOL')),
  onnotice: () => {},
  connection: { application_name: 'textrelay-bench-floor', search_path: setting('BENCH_FLOOR_SCHEMA') },
});
const client = setting('BENCH_FLOOR_CLIENT');
let next = 0;
let stopping = false;
let window: { started: number; cpu: NodeJS.CpuUsage; latencies: number[]; errors: number } | undefined;

async function worker(): Promise<void> {
  while (!stopping) {
    const started = performance.now();
    try {
      await insertThree(sql, `floor-${client}-${next++}`);
      window?.latencies.push(performance.now() - started);
    } catch {
      if (window) window.errors++;
    }
  }
}

const workers = Array.from({ length: Number(setting('BENCH_FLOOR_IN_FLIGHT')) }, worker);
console.log('floor client running');
await new Promise<void>((resolve) => createInterface({ input: process.stdin }).once('line', () => resolve()));
const measuring = { started: performance.now(), cpu: process.cpuUsage(), latencies: [] as number[], errors: 0 };
window = measuring;
await new Promise((resolve) => setTimeout(resolve, Number(setting('BENCH_FLOOR_SECONDS')) * 1000));
window = undefined;
const seconds = (performance.now() - measuring.started) / 1000;
const cpu = process.cpuUsage(measuring.cpu);
stopping = true;
await Promise.all(workers);
await sql.end();
const sorted = measuring.latencies.sort((a, b) => a - b);
const percentile = (p: number) => Number((sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? 0).toFixed(2));
console.log(
  `FLOOR_JSON ${JSON.stringify({
    transactions: sorted.length,
    seconds,
    errors: measuring.errors,
    latencyMs: { p50: percentile(50), p90: percentile(90), p99: percentile(99), max: Number((sorted.at(-1) ?? 0).toFixed(2)) },
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
  })}`,
);
process.exit(0);
