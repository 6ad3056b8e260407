import pino from 'pino';
import { buildApp } from '../../src/app.ts';
import type { AppDeps } from '../../src/http/app-deps.ts';
import { migrateDatabase, openDatabase, type Db } from '../../src/db/connection.ts';
import { createStore } from '../../src/db/store.ts';
import { loadConfig } from '../../src/config.ts';
import type { ProxySettings } from '../../src/http/forwarded.ts';
import type { MetricsEndpoint } from '../../src/http/metrics.ts';
import { createMetrics } from '../../src/metrics/metrics.ts';
import { createAccount, type CreateAccountInput } from '../../src/services/accounts.ts';
import { leaveToCourier } from '../../src/services/deps.ts';
import { createGroupCommit } from '../../src/services/group-commit.ts';
import { createNotifierHub } from '../../src/services/notifier.ts';
import { createRateLimiter } from '../../src/services/rate-limiter.ts';
import { createSignInThrottle, SIGN_IN_THROTTLE_TRACKED, type SignInThrottleSettings } from '../../src/services/sign-in-throttle.ts';
import { getGatewayStats } from '../../src/services/stats.ts';
import type { OutboundPolicy } from '../../src/domain/address-policy.ts';
import { createCallbackUrlCheck } from '../../src/webhooks/ssrf.ts';
import { FakeClock } from './clock.ts';
import { LOOPBACK_ALLOWED } from './fixtures.ts';
import { jsonRequest, readReply } from './http.ts';

const defaults = loadConfig({});
const DEFAULT_SIGN_IN_THROTTLE: SignInThrottleSettings = {
  maxFailures: defaults.TEXTRELAY_INBOX_LOGIN_MAX_FAILURES,
  windowMs: defaults.TEXTRELAY_INBOX_LOGIN_WINDOW_SECONDS * 1000,
  maxTracked: SIGN_IN_THROTTLE_TRACKED,
};

export type TestAccount = Awaited<ReturnType<typeof createAccount>> & { headers: Record<string, string> };

/**
 * The real app on a fresh in-memory database migrated by the production migrator, with a fake
 * clock. Every test gets its own; nothing is shared between tests.
 */
export function makeTestApp(
  overrides: {
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
    signInThrottle?: Partial<SignInThrottleSettings>;
    /** TEXTRELAY_TRUST_PROXY and an https TEXTRELAY_PUBLIC_URL; neither unless given. */
    proxy?: Partial<ProxySettings>;
  } = {},
) {
  const clock = new FakeClock();
  const db: Db = openDatabase(overrides.database ?? ':memory:');
  const notifier = createNotifierHub();
  migrateDatabase(db);
  const store = createStore(db);
  const deps: AppDeps = {
    store,
    groupCommit: createGroupCommit(store),
    clock,
    log: overrides.log ?? pino({ level: 'silent' }),
    sendRateLimiter: createRateLimiter(clock, overrides.rateLimitPerMinute ?? 0),
    notify: notifier,
    displayTimeZone: overrides.displayTimeZone ?? 'UTC',
    defaultNumbersPerAccount: 2,
    isReady: () => true,
    version: 'test',
    checkCallbackUrl: createCallbackUrlCheck(overrides.outboundPolicy ?? LOOPBACK_ALLOWED),
    transportName: overrides.transportName ?? 'sandbox',
    ingestSecrets: () => overrides.ingestSecrets ?? [],
    metrics: createMetrics({ version: 'test', readStats: () => getGatewayStats({ store, clock }) }),
    metricsEndpoint: overrides.metricsEndpoint ?? { enabled: true, bearerToken: undefined },
    signInThrottle: createSignInThrottle(clock, { ...DEFAULT_SIGN_IN_THROTTLE, ...overrides.signInThrottle }),
    proxy: { trustForwardedHeaders: false, publicUrlIsHttps: false, ...overrides.proxy },
    transportAtSend: overrides.transportAtSend ?? leaveToCourier,
  };
  const app = buildApp(deps);

  let accountCount = 0;
  /** Creates an account (sapphire unless told otherwise) and the headers that authenticate as it. */
  function createTestAccount(input: Partial<CreateAccountInput> = {}): TestAccount {
    accountCount += 1;
    const account = createAccount(deps, { email: `user${accountCount}@example.com`, plan: 'sapphire', ...input });
    return {
      ...account,
      headers: { 'svc-api-key-id': account.api_key_id, 'svc-api-secret-key': account.api_secret_key },
    };
  }

  /**
   * JSON request helper: `call('POST', '/api/send-message', account, body)`; `headers` are laid on
   * top of the credentials and the JSON content type.
   */
  async function call(method: string, path: string, account: TestAccount | undefined, body?: unknown, headers: Record<string, string> = {}) {
    return readReply(await app.request(path, jsonRequest(method, account?.headers ?? {}, body, headers)));
  }

  return { app, db, deps, clock, notifier, store: deps.store, createAccount: createTestAccount, call };
}

export type TestApp = ReturnType<typeof makeTestApp>;
