/**
 * Helpers for tests that drive real textrelay processes over loopback HTTP (see process.ts).
 */
import { createServer } from 'node:net';
import { expect } from 'vitest';
import { jsonRequest, type Reply, readReply } from './http.ts';
import { type RunningServer, runCli, startServer } from './process.ts';

export type Credentials = { api_key_id: string; api_secret_key: string; numbers: string[] };

/** A port free right now, for a server whose URL must be known before it starts (A's public URL, B's restart). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * Starts `serve` on a port chosen beforehand, for an environment that must name it (a public URL).
 * Another process may take a free port between the look and the bind: on EADDRINUSE the start is
 * tried again on a new one.
 */
export async function startServerOnFreePort(
  envFor: (port: number) => Record<string, string | undefined>,
  timeoutMs?: number,
): Promise<RunningServer> {
  for (let attempt = 1; ; attempt += 1) {
    const port = await freePort();
    try {
      return await startServer([], { ...envFor(port), PORT: String(port) }, timeoutMs);
    } catch (error) {
      if (attempt === 5 || !String(error).includes('EADDRINUSE')) throw error;
    }
  }
}

/** Polls `probe` until it returns something other than undefined; the timeout only bounds a broken run. */
export async function eventually<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`gave up waiting for ${what}${last ? `: ${String(last)}` : ''}`);
}

export async function api(server: RunningServer, credentials: Credentials, method: string, path: string, body?: unknown): Promise<Reply> {
  const headers = { 'svc-api-key-id': credentials.api_key_id, 'svc-api-secret-key': credentials.api_secret_key };
  return readReply(await fetch(`${server.url}${path}`, jsonRequest(method, headers, body)));
}

/** A sapphire account made by the CLI; `numbers` as `--numbers` takes it (a count, or lines in E.164), else the default lines. */
export async function createAccount(db: string, email: string, numbers?: string): Promise<Credentials> {
  const lines = numbers === undefined ? [] : ['--numbers', numbers];
  const created = await runCli(['accounts', 'create', '--email', email, '--plan', 'sapphire', ...lines, '--json', '--db', db], {
    LOG_LEVEL: 'silent',
  });
  expect(created.code, created.stderr).toBe(0);
  return JSON.parse(created.stdout) as Credentials;
}
