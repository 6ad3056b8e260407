import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { killAll, runCli, startServer } from '../helpers/process.ts';

// `textrelay healthcheck`, the container image's HEALTHCHECK: a real server, and real HTTP servers
// on loopback standing in for one that is not ready or does not answer.

// Four processes one after another: minutes on a loaded 2-core machine.
const SLOW = 120_000;
const dir = mkdtempSync(join(tmpdir(), 'textrelay-healthcheck-'));
const servers: Server[] = [];

afterEach(killAll);
afterAll(async () => {
  for (const server of servers) server.closeAllConnections();
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  rmSync(dir, { recursive: true, force: true });
});

/** A server on 127.0.0.1 that records the paths asked and answers with `handler`. */
async function fakeServer(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ port: number; paths: string[] }> {
  const paths: string[] = [];
  const server = createServer((req, res) => {
    paths.push(req.url ?? '');
    handler(req, res);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, paths };
}

describe('textrelay healthcheck', () => {
  it(
    'exits 0 with one line while serve runs, and 1 naming the address once it has stopped',
    async () => {
      const env = { TEXTRELAY_DB: join(dir, 'textrelay.db'), LOG_LEVEL: 'warn' };
      const server = await startServer(['--port', '0'], env);

      const byEnv = await runCli(['healthcheck'], { ...env, PORT: String(server.port) });
      expect(byEnv.code, byEnv.stderr).toBe(0);
      expect(byEnv.stdout).toBe(`textrelay at http://127.0.0.1:${server.port} is ready\n`);
      const byFlag = await runCli(['healthcheck', '--port', String(server.port), '--host', '127.0.0.1'], env);
      expect(byFlag.code, byFlag.stderr).toBe(0);

      expect(await server.stop()).toEqual({ code: 0, signal: null });
      const stopped = await runCli(['healthcheck', '--port', String(server.port)], env);
      expect(stopped.code).toBe(1);
      expect(stopped.stdout).toBe('');
      expect(stopped.stderr).toBe(
        `textrelay: http://127.0.0.1:${server.port}/readyz: connection refused (is textrelay serve running on this port?)\n`,
      );
    },
    SLOW,
  );

  it('asks /readyz on loopback when serve listens on 0.0.0.0, and exits 1 quoting a 503', async () => {
    const notReady = await fakeServer((_req, res) => {
      res.writeHead(503, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ status: 'ERROR', message: 'database not writable' }));
    });
    const result = await runCli(['healthcheck'], { HOST: '0.0.0.0', PORT: String(notReady.port) });
    expect(notReady.paths).toEqual(['/readyz']);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`textrelay: http://127.0.0.1:${notReady.port}/readyz answered 503: database not writable\n`);
  });

  it('gives up on a server that does not answer within 3 s: exit 1', async () => {
    const silent = await fakeServer(() => {});
    const started = performance.now();
    const result = await runCli(['healthcheck', '--port', String(silent.port)], {});
    expect(silent.paths).toEqual(['/readyz']);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`textrelay: http://127.0.0.1:${silent.port}/readyz: no answer within 3000 ms\n`);
    const waited = performance.now() - started;
    expect(waited).toBeGreaterThanOrEqual(3_000);
    expect(waited).toBeLessThan(20_000);
  });

  it('refuses port 0, which names no server: exit 1', async () => {
    const result = await runCli(['healthcheck', '--port', '0'], {});
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('textrelay: healthcheck needs the port the server listens on (PORT or --port), not 0\n');
  });
});
