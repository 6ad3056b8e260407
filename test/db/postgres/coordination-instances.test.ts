import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/app.ts';
import { startBackgroundWork } from '../../../src/background.ts';
import { loadConfig } from '../../../src/config.ts';
import { openPostgres, type PgPool } from '../../../src/db/postgres/connection.ts';
import { createPostgresStore } from '../../../src/db/postgres/store.ts';
import { createDeps } from '../../../src/deps.ts';
import { createIngestSecrets } from '../../../src/http/ingest-auth.ts';
import { createAccount } from '../../../src/services/accounts.ts';
import { createSandboxAtSend } from '../../../src/transports/sandbox.ts';
import { startReceiver } from '../../callbacks/receiver.ts';
import { ALICE } from '../../helpers/fixtures.ts';
import { jsonRequest, readReply } from '../../helpers/http.ts';
import { freshPostgresDatabase } from '../../helpers/postgres-database.ts';

/** Two instances' background work (sandbox, courier, dispatcher, bridge) on one database, as `serve` runs it. */

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const config = {
  ...loadConfig({}),
  TEXTRELAY_TRANSPORT: 'sandbox' as const,
  TEXTRELAY_SANDBOX_STEP_MS: 100,
  TEXTRELAY_RATE_LIMIT_PER_MINUTE: 0,
};

async function startInstance(pool: PgPool) {
  const sandboxAtSend = createSandboxAtSend({ stepMs: config.TEXTRELAY_SANDBOX_STEP_MS });
  const deps = createDeps(config, {
    store: createPostgresStore(pool),
    isReady: () => true,
    log: pino({ level: 'silent' }),
    transportAtSend: sandboxAtSend,
  });
  const background = await startBackgroundWork(config, {
    deps,
    ingestSecrets: createIngestSecrets(undefined),
    sandboxAtSend,
    sharedDatabase: pool,
  });
  cleanups.push(() => background.stop());
  return deps;
}

async function until(what: string, done: () => boolean, timeoutMs = 10_000): Promise<void> {
  for (const started = Date.now(); !done(); await new Promise((resolve) => setTimeout(resolve, 20))) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
  }
}

describe('two instances on one PostgreSQL', () => {
  it("run a send's sandbox timeline once and deliver each of its callbacks once", async () => {
    const database = await freshPostgresDatabase();
    const other = await openPostgres(database.url, { poolSize: 4 });
    cleanups.push(database.close, other.close);
    const receiver = await startReceiver();
    cleanups.push(receiver.close);
    const a = await startInstance(database.db);
    await startInstance(other.db);

    const account = await createAccount(a, { email: 'one@example.com', plan: 'sapphire' });

    const credentials = { 'svc-api-key-id': account.api_key_id, 'svc-api-secret-key': account.api_secret_key };
    const body = { number: ALICE, content: 'hello', status_callback: receiver.url() };
    expect((await readReply(await buildApp(a).request('/api/send-message', jsonRequest('POST', credentials, body)))).status).toBe(202);

    await until('the DELIVERED callback', () => receiver.received.some((request) => request.json?.status === 'DELIVERED'));
    await new Promise((resolve) => setTimeout(resolve, 500));
    const ids = receiver.received.map((request) => request.headers['webhook-id']);
    expect(new Set(ids).size).toBe(ids.length);
    // The timeline ran once: each status once, in order (the sandbox may add READ).
    const statuses = receiver.received.map((request) => request.json?.status);
    expect(statuses.slice(0, 3)).toEqual(['QUEUED', 'SENT', 'DELIVERED']);
    expect(new Set(statuses).size).toBe(statuses.length);
  }, 30_000);
});
