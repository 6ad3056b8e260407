import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The repository root: children run from here, as `npx textrelay` / `npm start` would. */
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const ENTRY = 'bin/textrelay.js';

/** What a child runs: the CLI from the sources, unless a test runs another build of it (the single executable). */
export type Program = { command: string; args: readonly string[]; cwd: string };
const SOURCE_CLI: Program = { command: process.execPath, args: [ENTRY], cwd: REPO_ROOT };

export type Exit = { code: number | null; signal: NodeJS.Signals | null };
export type CliResult = Exit & { stdout: string; stderr: string };

/** A finished command as a failed assertion shows it: its exit, and what it printed. */
export function describeRun(result: CliResult): string {
  return `exit ${result.code} (signal ${result.signal})\nstdout:\n${result.stdout}\nstderr:\n${result.stderr}`;
}

// Every child still alive; `killAll` (called from afterEach) makes sure none outlives its test.
const live = new Set<ChildProcess>();

/**
 * The parent's environment without any setting of ours, so a PORT or TEXTRELAY_DB exported in
 * the developer's shell cannot leak into a test; `env` is laid on top.
 */
export function childEnv(env: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (key === 'PORT' || key === 'HOST' || key === 'LOG_LEVEL' || key.startsWith('TEXTRELAY_')) continue;
    base[key] = value;
  }
  for (const [key, value] of Object.entries(env)) {
    if (value === undefined) delete base[key];
    else base[key] = value;
  }
  return base;
}

export type Spawned = {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** Resolves when the process has exited (never rejects). */
  exited: Promise<Exit>;
  /** Resolves with the first complete stdout line matching `pattern`; rejects on timeout or early exit. */
  waitForLine: (pattern: RegExp, timeoutMs?: number) => Promise<RegExpMatchArray>;
};

/** Starts `node bin/textrelay.js ...args` (what `npm start` and `npx textrelay` run; `npm start` adds V8 memory flags). */
export function spawnCli(args: string[], env: Record<string, string | undefined>, program: Program = SOURCE_CLI): Spawned {
  const child = spawn(program.command, [...program.args, ...args], {
    cwd: program.cwd,
    env: childEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  live.add(child);
  let out = '';
  let err = '';
  const lineWaiters = new Set<() => void>();
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
    for (const check of lineWaiters) check();
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    err += chunk;
  });
  const exited = new Promise<Exit>((resolve) => {
    child.once('close', (code, signal) => {
      live.delete(child);
      resolve({ code, signal });
      for (const check of lineWaiters) check();
    });
    child.once('error', () => {
      live.delete(child);
      resolve({ code: null, signal: null });
    });
  });
  let done = false;
  void exited.then(() => (done = true));

  const waitForLine = (pattern: RegExp, timeoutMs = 30_000) =>
    new Promise<RegExpMatchArray>((resolve, reject) => {
      const finish = (settle: () => void) => {
        clearTimeout(timer);
        lineWaiters.delete(check);
        settle();
      };
      const check = () => {
        // Only complete lines: a chunk may end in the middle of one.
        const lines = out.split('\n').slice(0, -1);
        for (const line of lines) {
          const match = line.match(pattern);
          if (match) return finish(() => resolve(match));
        }
        if (done || child.exitCode !== null || child.signalCode !== null) {
          finish(() =>
            reject(
              new Error(
                `process exited (${child.exitCode ?? child.signalCode}) before printing ${pattern}\nstdout:\n${out}\nstderr:\n${err}`,
              ),
            ),
          );
        }
      };
      const timer = setTimeout(
        () => finish(() => reject(new Error(`no line matching ${pattern} within ${timeoutMs} ms\nstdout:\n${out}\nstderr:\n${err}`))),
        timeoutMs,
      );
      lineWaiters.add(check);
      check();
    });

  return { child, stdout: () => out, stderr: () => err, exited, waitForLine };
}

/** Runs a command to completion; kills it and rejects if it takes longer than `timeoutMs`. */
export async function runCli(
  args: string[],
  env: Record<string, string | undefined>,
  timeoutMs = 30_000,
  program?: Program,
): Promise<CliResult> {
  const spawned = spawnCli(args, env, program);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      spawned.child.kill('SIGKILL');
      reject(
        new Error(
          `textrelay ${args.join(' ')} did not finish within ${timeoutMs} ms\nstdout:\n${spawned.stdout()}\nstderr:\n${spawned.stderr()}`,
        ),
      );
    }, timeoutMs);
  });
  try {
    const exit = await Promise.race([spawned.exited, timeout]);
    return { ...exit, stdout: spawned.stdout(), stderr: spawned.stderr() };
  } finally {
    clearTimeout(timer);
  }
}

export type RunningServer = Spawned & {
  url: string;
  port: number;
  /** Everything printed on stdout before the listening line (the development account, if any). */
  banner: string;
  /** Sends `signal` and waits for the exit; rejects if the process is still alive after `timeoutMs`. */
  stop: (signal?: NodeJS.Signals, timeoutMs?: number) => Promise<Exit>;
};

const LISTENING = /^textrelay listening on (http:\/\/127\.0\.0\.1:(\d+))$/;

/** Starts `textrelay serve ...args` and waits until it prints its listening line. */
export async function startServer(
  args: string[],
  env: Record<string, string | undefined>,
  timeoutMs = 30_000,
  program?: Program,
): Promise<RunningServer> {
  const spawned = spawnCli(['serve', ...args], env, program);
  const match = await spawned.waitForLine(LISTENING, timeoutMs);
  const banner = spawned.stdout().slice(0, spawned.stdout().indexOf(match[0]));
  const stop = async (signal: NodeJS.Signals = 'SIGTERM', stopTimeoutMs = 5_000): Promise<Exit> => {
    if (spawned.child.exitCode !== null || spawned.child.signalCode !== null) return spawned.exited;
    spawned.child.kill(signal);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        spawned.child.kill('SIGKILL');
        reject(
          new Error(
            `server did not exit within ${stopTimeoutMs} ms of ${signal}\nstdout:\n${spawned.stdout()}\nstderr:\n${spawned.stderr()}`,
          ),
        );
      }, stopTimeoutMs);
    });
    try {
      return await Promise.race([spawned.exited, timeout]);
    } finally {
      clearTimeout(timer);
    }
  };
  return { ...spawned, url: match[1]!, port: Number(match[2]), banner, stop };
}

/** Kills every child still running (SIGKILL) and waits for them to go; for afterEach. */
export async function killAll(): Promise<void> {
  const waiting = [...live].map(
    (child) =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('close', () => resolve());
        child.kill('SIGKILL');
      }),
  );
  live.clear();
  await Promise.all(waiting);
}
