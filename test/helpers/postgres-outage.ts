import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import type { AppDeps } from '../../src/http/app-deps.ts';
import { createLogger } from '../../src/logger.ts';
import { openRuntime } from '../../src/runtime.ts';
import { createAccount } from '../../src/services/accounts.ts';
import { ALICE } from './fixtures.ts';
import { jsonRequest, readReply } from './http.ts';
import { freshPostgresDatabase } from './postgres-database.ts';
import { startTcpProxy } from './tcp-proxy.ts';

export type LogLine = { level: number; msg: string; [field: string]: unknown };

/**
 * The app as `serve` opens it on a fresh PostgreSQL database reached through a TCP proxy, which the
 * test stops and starts to stand for the server stopping (the tests' shared server cannot), with
 * its log lines kept in memory. `cleanups` receives what to close, last first.
 */
export async function servedThroughProxy(cleanups: (() => Promise<void> | void)[], overrides: Partial<AppDeps> = {}) {
  const database = await freshPostgresDatabase();
  cleanups.push(database.close);
  const url = new URL(database.url);
  const proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port) });
  cleanups.push(proxy.close);
  url.port = String(proxy.port);
  const lines: LogLine[] = [];
  const raw: string[] = [];
  const log = createLogger('info', {
    write(line: string) {
      raw.push(line);
      lines.push(JSON.parse(line) as LogLine);
    },
  });
  const config = { ...loadConfig({ TEXTRELAY_DATABASE_URL: url.toString() }), TEXTRELAY_RATE_LIMIT_PER_MINUTE: 0 };
  const runtime = await openRuntime(config, log);
  cleanups.push(runtime.close);
  const deps = { ...runtime.deps, ...overrides };
  const app = buildApp(deps);
  const account = await createAccount(deps, { email: 'outage@example.com', plan: 'sapphire' });
  const headers = { 'svc-api-key-id': account.api_key_id, 'svc-api-secret-key': account.api_secret_key };
  /** A send through the API, with how long it took to be answered. */
  const send = async () => {
    const started = performance.now();
    const reply = await readReply(await app.request('/api/send-message', jsonRequest('POST', headers, { number: ALICE, content: 'hi' })));
    return { ...reply, ms: performance.now() - started };
  };
  return { app, proxy, lines, raw, send, account, isReady: deps.isReady };
}
