import pino from 'pino';
import { onTestFinished, TestRunner } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { type Config, loadConfig } from '../../src/config.ts';
import type { PgDb } from '../../src/db/postgres/db.ts';
import { createPostgresStore } from '../../src/db/postgres/store.ts';
import { closeDatabase, type Db, migrateDatabase, openDatabase } from '../../src/db/sqlite/connection.ts';
import { createSqliteStore, type SqliteStore } from '../../src/db/sqlite/store.ts';
import type { Store } from '../../src/db/store.ts';
import { createDeps } from '../../src/deps.ts';
import type { OutboundPolicy } from '../../src/domain/address-policy.ts';
import type { AppDeps } from '../../src/http/app-deps.ts';
import type { ProxySettings } from '../../src/http/forwarded.ts';
import type { ProviderWebhookSecret } from '../../src/http/ingest-auth.ts';
import type { MetricsEndpoint } from '../../src/http/metrics.ts';
import { type CreateAccountInput, createAccount } from '../../src/services/accounts.ts';
import type { ProviderApi } from '../../src/services/provider.ts';
import type { SignInThrottleSettings } from '../../src/services/sign-in-throttle.ts';
import { FakeClock } from './clock.ts';
import { deferredStore } from './deferred-store.ts';
import { LOOPBACK_ALLOWED } from './fixtures.ts';
import { jsonRequest, readReply } from './http.ts';
import { reusedPostgresDatabase } from './postgres-database.ts';
import { oneProviderAccount } from './providers.ts';

const defaults = loadConfig({});

/** The database the test apps run on: SQLite unless the vitest project sets TEXTRELAY_TEST_BACKEND=postgres. */
export const TEST_BACKEND: 'sqlite' | 'postgres' = process.env.TEXTRELAY_TEST_BACKEND === 'postgres' ? 'postgres' : 'sqlite';

export type TestAccount = Awaited<ReturnType<typeof createAccount>> & { headers: Record<string, string> };

export type TestAppOptions = {
  rateLimitPerMinute?: number;
  /** TEXTRELAY_WRITE_RATE_LIMIT_PER_MINUTE; off unless given. */
  writeRateLimitPerMinute?: number;
  /** TEXTRELAY_WEBHOOK_URLS_PER_TYPE; the production default unless given. */
  webhookUrlsPerType?: number;
  displayTimeZone?: string;
  database?: string;
  /** A PostgreSQL pool to run on instead of the test backend's database (a benchmark's own server); its owner closes it. */
  postgresPool?: PgDb;
  transportName?: Config['TEXTRELAY_TRANSPORT'];
  /** Secrets accepted by /webhooks/*; none by default, which refuses every caller. */
  ingestSecrets?: string[];
  /** The addresses callback URLs may name; private ones allowed by default, as `serve` with the sandbox has it. */
  outboundPolicy?: OutboundPolicy;
  /** Where log lines go (silent when not given); e.g. an in-memory stream built with src/logger.ts's createLogger. */
  log?: AppDeps['log'];
  /** /metrics served openly unless told otherwise. */
  metricsEndpoint?: MetricsEndpoint;
  /** What the transport does at each send (the sandbox's `createSandboxAtSend`, as `serve` has it); `leaveToCourier` unless given. */
  transportAtSend?: AppDeps['transportAtSend'];
  /** Inbox sign-in lock-out; the production defaults (10 failures per 15 minutes) unless given. */
  signInThrottle?: Partial<Pick<SignInThrottleSettings, 'maxFailures' | 'windowMs'>>;
  /** TEXTRELAY_TRUST_PROXY and an https TEXTRELAY_PUBLIC_URL; neither unless given. */
  proxy?: Partial<ProxySettings>;
  /** TEXTRELAY_MEDIA_URL; unset unless given. */
  mediaUrl?: string;
  /** TEXTRELAY_MEDIA_QUOTA_MB and TEXTRELAY_CONTACTS_QUOTA; the defaults unless given. */
  quotas?: Partial<Pick<Config, 'TEXTRELAY_MEDIA_QUOTA_MB' | 'TEXTRELAY_CONTACTS_QUOTA'>>;
  /** The provider of relay mode (a fake in tests), answering for every account; none unless given, as with the sandbox. */
  provider?: ProviderApi;
  /** The provider accounts of relay mode, when the test tells them apart; none unless given. */
  providers?: AppDeps['providers'];
  /** The provider accounts' webhook secrets /webhooks/* accept, each for its own tenants. */
  providerSecrets?: ProviderWebhookSecret[];
  /** Settings laid over all of the above (a carrier's, say). */
  config?: Partial<Config>;
};

/** The configuration `serve` would have for these options, with the tests' defaults: no rate limits, callbacks to loopback allowed. */
function testConfig(options: TestAppOptions): Config {
  const policy = options.outboundPolicy ?? LOOPBACK_ALLOWED;
  const metrics = options.metricsEndpoint ?? { enabled: true, bearerToken: undefined };
  const windowMs = options.signInThrottle?.windowMs;
  return {
    ...defaults,
    TEXTRELAY_DB: options.database ?? ':memory:',
    TEXTRELAY_TRANSPORT: options.transportName ?? 'sandbox',
    TEXTRELAY_RATE_LIMIT_PER_MINUTE: options.rateLimitPerMinute ?? 0,
    TEXTRELAY_WRITE_RATE_LIMIT_PER_MINUTE: options.writeRateLimitPerMinute ?? 0,
    TEXTRELAY_WEBHOOK_URLS_PER_TYPE: options.webhookUrlsPerType ?? defaults.TEXTRELAY_WEBHOOK_URLS_PER_TYPE,
    TEXTRELAY_DISPLAY_TZ: options.displayTimeZone ?? 'UTC',
    TEXTRELAY_ALLOW_PRIVATE_CALLBACKS: policy.allowPrivate,
    TEXTRELAY_ALLOW_LINK_LOCAL_CALLBACKS: policy.allowLinkLocal,
    TEXTRELAY_METRICS: metrics.enabled,
    TEXTRELAY_METRICS_TOKEN: metrics.bearerToken,
    TEXTRELAY_INBOX_LOGIN_MAX_FAILURES: options.signInThrottle?.maxFailures ?? defaults.TEXTRELAY_INBOX_LOGIN_MAX_FAILURES,
    TEXTRELAY_INBOX_LOGIN_WINDOW_SECONDS: windowMs === undefined ? defaults.TEXTRELAY_INBOX_LOGIN_WINDOW_SECONDS : windowMs / 1000,
    TEXTRELAY_TRUST_PROXY: options.proxy?.trustForwardedHeaders ?? false,
    TEXTRELAY_PUBLIC_URL: options.proxy?.publicUrlIsHttps ? 'https://textrelay.example' : undefined,
    ...options.config,
    TEXTRELAY_MEDIA_URL: options.mediaUrl,
    ...options.quotas,
  };
}

/** A test app's database: the store, and for SQLite the handles its tests may reach under it. */
type TestDatabase = {
  store: Store;
  db: Db;
  queries: SqliteStore['queries'];
  commits: SqliteStore['commits'];
  /** On PostgreSQL, its pool once ready, for test helpers that read tables under the store. */
  postgres: Promise<PgDb> | undefined;
  /** Closes the database; again does nothing. */
  close(): Promise<void>;
};

/** A fresh in-memory SQLite (or the file `database`) migrated by the production migrator. */
function sqliteDatabase(database = ':memory:'): TestDatabase {
  const db = openDatabase(database);
  migrateDatabase(db);
  const sqlite = createSqliteStore(db, ':memory:');
  return {
    store: sqlite.store,
    db,
    queries: sqlite.queries,
    commits: sqlite.commits,
    postgres: undefined,
    close: async () => {
      if (db.$client.open) closeDatabase(db);
    },
  };
}

/** Stands for a SQLite-only handle on PostgreSQL: any use fails, naming the handle, so such tests stay SQLite-only. */
function sqliteOnly<T>(name: string): T {
  return new Proxy({} as object, {
    get() {
      throw new Error(`t.${name} is SQLite-only: this test cannot run on PostgreSQL`);
    },
  }) as T;
}

/**
 * A PostgreSQL database of its own, migrated and empty, handed out before it is ready (calls
 * wait for it), closed when the test ends.
 */
function postgresDatabase(): TestDatabase {
  const database = reusedPostgresDatabase();
  const close = async () => (await database).close();
  // Outside a test (beforeAll), the file's end closes it.
  if (TestRunner.getCurrentTest()) onTestFinished(close);
  return {
    store: deferredStore(database.then(({ db }) => createPostgresStore(db))),
    db: sqliteOnly('db'),
    queries: sqliteOnly('queries'),
    commits: sqliteOnly('commits'),
    postgres: database.then(({ db }) => db),
    close,
  };
}

/** A pool opened by the caller, which also closes it. */
function postgresPoolDatabase(db: PgDb): TestDatabase {
  return {
    store: createPostgresStore(db),
    db: sqliteOnly('db'),
    queries: sqliteOnly('queries'),
    commits: sqliteOnly('commits'),
    postgres: Promise.resolve(db),
    close: async () => {},
  };
}

function testDatabase(overrides: TestAppOptions): TestDatabase {
  if (overrides.postgresPool) return postgresPoolDatabase(overrides.postgresPool);
  if (TEST_BACKEND === 'sqlite') return sqliteDatabase(overrides.database);
  if (overrides.database !== undefined) throw new Error('a SQLite file (options.database) cannot run on PostgreSQL');
  return postgresDatabase();
}

/**
 * The real app on a fresh database of the test backend (TEST_BACKEND) migrated by the production
 * migrator, with a fake clock. Every test gets its own; nothing is shared between tests.
 */
export function makeTestApp(overrides: TestAppOptions = {}) {
  const clock = new FakeClock();
  const database = testDatabase(overrides);
  const config = testConfig(overrides);
  const deps = createDeps(config, {
    store: database.store,
    isReady: () => true,
    clock,
    log: overrides.log ?? pino({ level: 'silent' }),
    ingestSecrets: () => overrides.ingestSecrets ?? [],
    transportAtSend: overrides.transportAtSend,
    providers: overrides.providers ?? (overrides.provider && oneProviderAccount(overrides.provider)),
    providerSecrets: () => overrides.providerSecrets ?? [],
  });
  const app = buildApp(deps);

  let accountCount = 0;
  /** Creates an account (sapphire unless told otherwise) and the headers that authenticate as it. */
  async function createTestAccount(input: Partial<CreateAccountInput> = {}): Promise<TestAccount> {
    accountCount += 1;
    const account = await createAccount(deps, { email: `user${accountCount}@example.com`, plan: 'sapphire', ...input });
    return {
      ...account,
      headers: { 'svc-api-key-id': account.api_key_id, 'svc-api-secret-key': account.api_secret_key },
    };
  }

  /**
   * JSON request helper: `call('POST', '/api/send-message', account, body)`; `headers` are laid on
   * top of the credentials and the JSON content type.
   */
  async function call(
    method: string,
    path: string,
    account: TestAccount | undefined,
    body?: unknown,
    headers: Record<string, string> = {},
  ) {
    return readReply(await app.request(path, jsonRequest(method, account?.headers ?? {}, body, headers)));
  }

  return {
    app,
    config,
    db: database.db,
    postgres: database.postgres,
    close: database.close,
    deps,
    clock,
    notifier: deps.notify,
    store: deps.store,
    commits: database.commits,
    queries: database.queries,
    createAccount: createTestAccount,
    call,
  };
}

export type TestApp = ReturnType<typeof makeTestApp>;
