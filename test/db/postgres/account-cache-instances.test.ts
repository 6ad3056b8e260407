import pino from 'pino';
import { afterEach, describe, it } from 'vitest';
import { buildApp } from '../../../src/app.ts';
import { loadConfig } from '../../../src/config.ts';
import { openPostgres, type PgPool } from '../../../src/db/postgres/connection.ts';
import { createPostgresStore } from '../../../src/db/postgres/store.ts';
import { createDeps } from '../../../src/deps.ts';
import { bridgeNotifier } from '../../../src/notifier-bridging.ts';
import { expectNoStaleReads, type Instance } from '../../helpers/account-cache-scenario.ts';
import { LOOPBACK_ALLOWED } from '../../helpers/fixtures.ts';
import { freshPostgresDatabase } from '../../helpers/postgres-database.ts';

// Two instances on one PostgreSQL database, each with its account cache, joined by LISTEN/NOTIFY.

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const config = {
  ...loadConfig({}),
  TEXTRELAY_RATE_LIMIT_PER_MINUTE: 0,
  TEXTRELAY_ALLOW_PRIVATE_CALLBACKS: LOOPBACK_ALLOWED.allowPrivate,
};

async function instance(pool: PgPool): Promise<Instance> {
  const deps = createDeps(config, { store: createPostgresStore(pool), isReady: () => true, log: pino({ level: 'silent' }) });
  const bridge = await bridgeNotifier(deps, pool);
  cleanups.push(() => bridge.close());
  const app = buildApp(deps);
  return { deps, request: (path, init) => app.request(path, init) };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the account cache of two instances on one PostgreSQL', () => {
  it('never answers from what the other instance changed, once its notification arrived', async () => {
    const database = await freshPostgresDatabase();
    const other = await openPostgres(database.url, { poolSize: 4 });
    cleanups.push(database.close, other.close);
    const writer = await instance(database.db);
    const reader = await instance(other.db);
    let changes = 0;
    reader.deps.notify.subscribe({ accountDataChanged: () => (changes += 1) });
    let seen = 0;
    // The notification of a change, if it made one (an opt-out changes nothing kept), and a moment for any that follow it.
    const heard = async () => {
      for (const started = Date.now(); changes === seen && Date.now() - started < 1_000; ) await sleep(5);
      await sleep(30);
      seen = changes;
    };
    await expectNoStaleReads(writer, reader, heard);
  }, 30_000);
});
