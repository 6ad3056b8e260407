import pino from 'pino';
import { buildApp } from '../../src/app.ts';
import { startBackgroundWork } from '../../src/background.ts';
import { loadConfig } from '../../src/config.ts';
import { openRuntime, openSqliteStore } from '../../src/runtime.ts';
import { createAccount } from '../../src/services/accounts.ts';
import { jsonRequest, type Reply, readReply } from './http.ts';

/**
 * What `textrelay serve` runs (the runtime, the app, the transport, courier and dispatcher, on the
 * real clock), inside the test process: for fault tests that must reach the live database
 * connection, which a child process keeps to itself. What they do to that connection (PRAGMAs
 * that make the file full or read-only) is the tests' seam; the service only sees SQLite's errors.
 */
export async function startInProcessService(env: Record<string, string>) {
  const config = loadConfig({
    LOG_LEVEL: 'silent',
    TEXTRELAY_RATE_LIMIT_PER_MINUTE: '0',
    TEXTRELAY_WRITE_RATE_LIMIT_PER_MINUTE: '0',
    ...env,
  });
  const log = pino({ level: config.LOG_LEVEL });
  const opened = openSqliteStore(config.TEXTRELAY_DB, config, log, false);
  const runtime = await openRuntime(config, log, { opened });
  const { db } = opened;
  const { deps } = runtime;
  const app = buildApp(deps);
  const account = await createAccount(deps, { email: 'faults@example.com', plan: 'sapphire' });
  const credentials = { 'svc-api-key-id': account.api_key_id, 'svc-api-secret-key': account.api_secret_key };
  const background = await startBackgroundWork(config, runtime);
  let stopped = false;

  return {
    db,
    deps,
    /** A request as the account (its credentials first, `headers` on top). */
    async call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply> {
      return readReply(await app.request(path, jsonRequest(method, credentials, body, headers)));
    },
    /** As a server's shutdown does: background work stops, then the database closes. */
    async stop(): Promise<void> {
      if (stopped) return;
      stopped = true;
      await background.stop();
      await runtime.close();
    },
  };
}

export type InProcessService = Awaited<ReturnType<typeof startInProcessService>>;
