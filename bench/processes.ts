/**
 * The processes a benchmark starts: a real `textrelay serve`, callback sinks and receivers, each
 * optionally pinned to one core so the server and the load generator do not share a CPU.
 */
import { type ChildProcess, execSync, type SpawnOptions, spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { currentBuild } from '../bin/build-state.js';

export const REPO_ROOT = fileURLToPath(new URL('../', import.meta.url));

/** Pinning needs taskset and at least two cores: on one core, every process shares it anyway. */
export const CAN_PIN = availableParallelism() >= 2 && spawnSync('taskset', ['-V']).status === 0;

/** Starts `command` on core `cpu` when pinning is possible, unpinned otherwise. */
export function spawnPinned(cpu: number | undefined, command: string, args: string[], options: SpawnOptions): ChildProcess {
  if (cpu === undefined || !CAN_PIN) return spawn(command, args, options);
  return spawn('taskset', ['-c', String(cpu), command, ...args], options);
}

/** Moves every thread of a running process (this one, by default) to core `cpu`. */
export function pinProcess(cpu: number, pid = process.pid): void {
  if (CAN_PIN) spawnSync('taskset', ['-a', '-p', '-c', String(cpu), String(pid)], { stdio: 'ignore' });
}

/** Resolves with the first match of `pattern` in the child's stdout; rejects if it exits first. */
export function waitForLine(child: ChildProcess, pattern: RegExp): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      const match = out.match(pattern);
      if (match) resolve(match);
    });
    child.once('exit', (code) => reject(new Error(`${child.spawnargs.join(' ')} exited (${code}) before printing ${pattern}:\n${out}`)));
  });
}

/** Stops a child with SIGTERM and waits for it to exit. */
export function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/** CPU seconds (user + system) a live process has used so far, from /proc. */
export function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  // utime and stime are fields 14 and 15 of stat, counted from the state field (3) here.
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/**
 * Waits until `cpuSeconds` (the CPU time of some processes) stops moving: at most 0.1 cores over
 * 200 ms, or `maxMs` at the latest. Answers how long it waited, in ms.
 */
export async function waitUntilIdle(cpuSeconds: () => number, maxMs = 10_000): Promise<number> {
  const started = performance.now();
  let last = cpuSeconds();
  while (performance.now() - started < maxMs) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    const now = cpuSeconds();
    if (now - last <= 0.02) break;
    last = now;
  }
  return performance.now() - started;
}

/** Peak resident set size of a live process (VmHWM), in megabytes. */
export function peakRssMb(pid: number): number {
  const kb = Number(readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmHWM:\s+(\d+) kB/)?.[1] ?? 0);
  return Math.round(kb / 1024);
}

export type ServerProcess = { url: string; pid: number; stop: () => Promise<void> };

/** The node flags of `npm start` (the checkout's package.json), so the benchmark measures the server as it is run. */
function startScriptNodeFlags(root: string): string[] {
  const { scripts } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: { start: string } };
  const words = scripts.start.split(/\s+/);
  return words.slice(words.indexOf('node') + 1, words.indexOf('bin/textrelay.js'));
}

/**
 * Compiles the checkout at `root` into dist/ when its build is missing or older than its sources, as
 * `npm install` does: the server then runs the JavaScript `npm start` runs. Through tsx instead, its
 * loader thread and the compiled sources add about 45 MB to the server's resident memory.
 */
function buildIfStale(root: string): void {
  if (currentBuild(root) !== undefined) return;
  console.log(`[bench] building ${join(root, 'dist')} (npm run build): it is missing or older than the sources`);
  execSync('npm run build', { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
}

/** A real `textrelay serve` on a free port, from this checkout or from `root` (another checkout), built first if stale. */
export async function startServer(options: {
  env: Record<string, string>;
  cpu?: number;
  root?: string;
  nodeArgs?: string[];
}): Promise<ServerProcess> {
  const root = options.root ?? REPO_ROOT;
  buildIfStale(root);
  const args = [...startScriptNodeFlags(root), ...(options.nodeArgs ?? []), 'bin/textrelay.js', 'serve'];
  const child = spawnPinned(options.cpu, process.execPath, args, {
    cwd: root,
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'warn', TEXTRELAY_RATE_LIMIT_PER_MINUTE: '0', ...options.env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [, url] = await waitForLine(child, /textrelay listening on (http:\/\/\S+)/);
  // taskset execs its command, so the child's pid is the server's own (for /proc readings).
  return { url: url!, pid: child.pid!, stop: () => stopChild(child) };
}

/** An in-process receiver for status callbacks: answers 204 at once. */
export async function startSink(): Promise<{ url: string; close: () => void }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(204).end());
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/status`,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}
