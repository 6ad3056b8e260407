/**
 * Runs wrk (Debian's package, installed on first use) with one of the Lua scripts of bench/wrk/,
 * and reads back its JSON summary and how much CPU wrk itself used: a generator near one full
 * core is the bottleneck, not the server.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { spawnPinned } from './processes.ts';

const SCRIPTS = fileURLToPath(new URL('wrk/', import.meta.url));

export type Latencies = { p50: number; p90: number; p99: number; max: number };

/** Several load generators' latencies as one: the worse of each percentile. */
export function worstLatencies(all: Latencies[]): Latencies {
  const worst = (pick: (latencies: Latencies) => number) => Math.max(...all.map(pick));
  return { p50: worst((l) => l.p50), p90: worst((l) => l.p90), p99: worst((l) => l.p99), max: worst((l) => l.max) };
}

export type LoadResult = {
  requests: number;
  seconds: number;
  requestsPerSecond: number;
  errors: number;
  latencyMs: Latencies;
  /** CPU wrk used, in cores (1 = one core busy for the whole run). */
  generatorCpu: number;
  /**
   * Share of the machine's CPU time its hypervisor took for other guests during the run (steal
   * time, /proc/stat); absent off Linux. A shared VM's bursts of it slow every figure of a run.
   */
  stolenCpu?: number;
};

/** Installs wrk with apt-get when it is missing (as root, or through sudo without a password). */
export function ensureWrk(): void {
  if (spawnSync('wrk', ['--version']).error === undefined) return;
  console.log("wrk is missing: installing Debian's package");
  const asRoot = process.getuid?.() === 0;
  const install = asRoot
    ? spawnSync('apt-get', ['install', '-y', 'wrk'], { stdio: 'inherit' })
    : spawnSync('sudo', ['-n', 'apt-get', 'install', '-y', 'wrk'], { stdio: 'inherit' });
  if (install.status !== 0 || spawnSync('wrk', ['--version']).error !== undefined) {
    throw new Error('wrk is required: install it with `apt-get install wrk` (Debian/Ubuntu) and run again');
  }
}

export async function runWrk(options: {
  script: 'bare' | 'ingest' | 'send' | 'listing' | 'mixed';
  url: string;
  seconds: number;
  connections: number;
  threads: number;
  cpu: number | undefined;
  env: Record<string, string>;
}): Promise<LoadResult> {
  // wrk refuses fewer connections than threads, each thread needing one of them.
  if (options.connections < options.threads)
    throw new Error(`wrk needs at least as many connections as threads (${options.connections} < ${options.threads})`);
  const args = [
    `-t${options.threads}`,
    `-c${options.connections}`,
    `-d${options.seconds}s`,
    '--timeout',
    '10s',
    '-s',
    `${SCRIPTS}${options.script}.lua`,
    options.url,
  ];
  // `times` prints the CPU time of the shell's children: wrk's own, once it has exited.
  const child = spawnPinned(options.cpu, 'bash', ['-c', 'wrk "$@"; code=$?; times >&2; exit $code', 'bash', ...args], {
    env: { ...process.env, BENCH_WRK_DIR: SCRIPTS, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stolenBefore = stolenTicks();
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  const stolenAfter = stolenTicks();
  const json = stdout.match(/^BENCH_JSON (.*)$/m)?.[1];
  if (code !== 0 || json === undefined) throw new Error(`wrk ${options.script} failed (${code}):\n${stdout}\n${stderr}`);
  const summary = JSON.parse(json) as {
    requests: number;
    durationUs: number;
    errors: Record<string, number>;
    latencyUs: { p50: number; p90: number; p99: number; max: number };
  };
  const seconds = summary.durationUs / 1e6;
  const ms = (us: number) => Number((us / 1000).toFixed(2));
  return {
    requests: summary.requests,
    seconds: Number(seconds.toFixed(2)),
    requestsPerSecond: Math.round(summary.requests / seconds),
    errors: Object.values(summary.errors).reduce((sum, count) => sum + count, 0),
    latencyMs: {
      p50: ms(summary.latencyUs.p50),
      p90: ms(summary.latencyUs.p90),
      p99: ms(summary.latencyUs.p99),
      max: ms(summary.latencyUs.max),
    },
    generatorCpu: Number((childCpuSeconds(stderr) / seconds).toFixed(2)),
    ...(stolenBefore === undefined || stolenAfter === undefined
      ? {}
      : { stolenCpu: Number(((stolenAfter - stolenBefore) / (seconds * USER_HZ * cpus().length)).toFixed(2)) }),
  };
}

/** The clock ticks of /proc/stat. */
const USER_HZ = 100;

/** Steal ticks of all CPUs so far (the eighth figure of /proc/stat's `cpu` line), or undefined off Linux. */
function stolenTicks(): number | undefined {
  try {
    const steal = readFileSync('/proc/stat', 'utf8')
      .match(/^cpu\s+(.*)$/m)?.[1]
      ?.split(/\s+/)[7];
    return steal === undefined ? undefined : Number(steal);
  } catch {
    return undefined;
  }
}

/** The second line of bash's `times`: user and system time of its children, as 0m1.234s 0m0.567s. */
function childCpuSeconds(timesOutput: string): number {
  const lines = timesOutput.trim().split('\n');
  const children = lines.at(-1) ?? '';
  return [...children.matchAll(/(\d+)m([\d.]+)s/g)].reduce((sum, [, minutes, secs]) => sum + Number(minutes) * 60 + Number(secs), 0);
}
