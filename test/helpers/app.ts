import pino from 'pino';
import { buildApp } from '../../src/app.ts';
import { type Config, loadConfig } from '../../src/config.ts';
import { type Db, migrateDatabase, openDatabase } from '../../src/db/sqlite/connection.ts';
import { createSqliteStore } from '../../src/db/sqlite/store.ts';
import { createDeps } from '../../src/deps.ts';
import type { OutboundPolicy } from '../../src/domain/address-policy.ts';
import type { AppDeps } from '../../src/http/app-deps.ts';
import type { ProxySettings } from '../../src/http/forwarded.ts';
import type { MetricsEndpoint } from '../../src/http/metrics.ts';
import { type CreateAccountInput, createAccount } from '../../src/services/accounts.ts';
import type { SignInThrottleSettings } from '../../src/services/sign-in-throttle.ts';
import { FakeClock } from './clock.ts';
import { LOOPBACK_ALLOWED } from './fixtures.ts';
import { jsonRequest, readReply } from './http.ts';

const defaults = loadConfig({});

export type TestAccount = Awaited<ReturnType<typeof createAccount>> & { headers: Record<string, string> };

export type TestAppOptions = {
  rateLimitPerMinute?: number;
  displayTimeZone?: string;
  database?: string;
  transportName?: AppDeps['transportName'];
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
  /** The provider of relay mode (a fake in tests); none unless given, as with the sandbox. */
  provider?: AppDeps['provider'];
};

/** The configuration `serve` would have for these options, with the tests' defaults: no rate limit, callbacks to loopback allowed. */
function testConfig(options: TestAppOptions): Config {
  const policy = options.outboundPolicy ?? LOOPBACK_ALLOWED;
  const metrics = options.metricsEndpoint ?? { enabled: true, bearerToken: undefined };
  const windowMs = options.signInThrottle?.windowMs;
  return {
    ...defaults,
    TEXTRELAY_DB: options.database ?? ':memory:',
    TEXTRELAY_TRANSPORT: options.transportName ?? 'sandbox',
    TEXTRELAY_RATE_LIMIT_PER_MINUTE: options.rateLimitPerMinute ?? 0,
    TEXTRELAY_DISPLAY_TZ: options.displayTimeZone ?? 'UTC',
    TEXTRELAY_ALLOW_PRIVATE_CALLBACKS: policy.allowPrivate,
    TEXTRELAY_ALLOW_LINK_LOCAL_CALLBACKS: policy.allowLinkLocal,
    TEXTRELAY_METRICS: metrics.enabled,
    TEXTRELAY_METRICS_TOKEN: metrics.bearerToken,
    TEXTRELAY_INBOX_LOGIN_MAX_FAILURES: options.signInThrottle?.maxFailures ?? defaults.TEXTRELAY_INBOX_LOGIN_MAX_FAILURES,
    TEXTRELAY_INBOX_LOGIN_WINDOW_SECONDS: windowMs === undefined ? defaults.TEXTRELAY_INBOX_LOGIN_WINDOW_SECONDS : windowMs / 1000,
    TEXTRELAY_TRUST_PROXY: options.proxy?.trustForwardedHeaders ?? false,
    TEXTRELAY_PUBLIC_URL: options.proxy?.publicUrlIsHttps ? 'https://textrelay.example' : undefined,
  };
}

/**
 * The real app on a fresh in-memory database migrated by the production migrator, with a fake
 * clock. Every test gets its own; nothing is shared between tests.
 */
export function makeTestApp(overrides: TestAppOptions = {}) {
  const clock = new FakeClock();
  const db: Db = openDatabase(overrides.database ?? ':memory:');
  migrateDatabase(db);
  const sqlite = createSqliteStore(db, ':memory:');
  const deps = createDeps(testConfig(overrides), {
    store: sqlite.store,
    isReady: () => true,
    clock,
    log: overrides.log ?? pino({ level: 'silent' }),
    ingestSecrets: () => overrides.ingestSecrets ?? [],
    transportAtSend: overrides.transportAtSend,
    provider: overrides.provider,
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
    db,
    deps,
    clock,
    notifier: deps.notify,
    store: deps.store,
    commits: sqlite.commits,
    queries: sqlite.queries,
    createAccount: createTestAccount,
    call,
  };
}

export type TestApp = ReturnType<typeof makeTestApp>;
