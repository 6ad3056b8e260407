import { request } from 'node:http';
import type { Config } from '../config.ts';

/** A probe that waits longer tells a container runtime nothing it can act on sooner. */
const TIMEOUT_MS = 3_000;
/** Enough of the answer to quote its message; readiness answers are a few bytes. */
const MAX_BODY = 1_024;

export type HealthcheckOutput = { healthy: boolean; line: string };

/** The address a probe on this machine reaches a server at: one listening on every address is reached on loopback. */
function probeUrl(config: Pick<Config, 'HOST' | 'PORT'>): URL {
  const host = config.HOST === '0.0.0.0' ? '127.0.0.1' : config.HOST === '::' ? '::1' : config.HOST;
  return new URL(`http://${host.includes(':') ? `[${host}]` : host}:${config.PORT}/readyz`);
}

/** What a refused or unanswered request says, in the words of docs/cli.md rather than libuv's. */
function describeFailure(error: NodeJS.ErrnoException): string {
  if (error.code === 'ECONNREFUSED') return 'connection refused (is textrelay serve running on this port?)';
  if (error.code === 'ETIMEDOUT') return `no answer within ${TIMEOUT_MS} ms`;
  return error.message;
}

function messageOf(body: string): string {
  try {
    const parsed = JSON.parse(body) as { message?: unknown };
    if (typeof parsed.message === 'string') return `: ${parsed.message}`;
  } catch {}
  return '';
}

/**
 * `textrelay healthcheck`: GET /readyz of the server this configuration runs, healthy on 200. A plain
 * node:http request rather than the guarded outbound client, which exists to keep callbacks off
 * loopback, the one address this probe must reach.
 */
export function healthcheckCommand(config: Pick<Config, 'HOST' | 'PORT'>): Promise<HealthcheckOutput> {
  if (config.PORT === 0) {
    return Promise.resolve({ healthy: false, line: 'textrelay: healthcheck needs the port the server listens on (PORT or --port), not 0' });
  }
  const url = probeUrl(config);
  return new Promise((resolve) => {
    const req = request(url, { timeout: TIMEOUT_MS, headers: { connection: 'close' } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        if (body.length < MAX_BODY) body += chunk;
      });
      res.on('end', () => {
        if (res.statusCode === 200) resolve({ healthy: true, line: `textrelay at ${url.origin} is ready` });
        else resolve({ healthy: false, line: `textrelay: ${url} answered ${res.statusCode}${messageOf(body)}` });
      });
      res.on('error', (error) => resolve({ healthy: false, line: `textrelay: ${url}: ${describeFailure(error)}` }));
    });
    req.on('timeout', () => req.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })));
    req.on('error', (error) => resolve({ healthy: false, line: `textrelay: ${url}: ${describeFailure(error)}` }));
    req.end();
  });
}
