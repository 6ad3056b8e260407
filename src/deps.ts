import type { Logger } from 'pino';
import { type Config, outboundPolicyOf } from './config.ts';
import type { Store } from './db/store.ts';
import { transportKindOf } from './domain/carriers.ts';
import type { AppDeps } from './http/app-deps.ts';
import { createIngestSecrets, type ProviderWebhookSecret } from './http/ingest-auth.ts';
import { createLogger } from './logger.ts';
import { createMetrics } from './metrics/metrics.ts';
import { createCallbackUrlCheck } from './outbound/callback-url-check.ts';
import { createMediaFetcher } from './outbound/media-fetch.ts';
import { createAccountCache } from './services/account-cache.ts';
import { cachingStore } from './services/caching-store.ts';
import { createCarrierDirectory } from './services/carrier-directory.ts';
import { type Clock, systemClock } from './services/clock.ts';
import { leaveToCourier, type TransportAtSend } from './services/deps.ts';
import { createGroupCommit } from './services/group-commit.ts';
import { createNotifierHub } from './services/notifier.ts';
import type { ProviderAccounts } from './services/provider.ts';
import { createRateLimiter, createSharedRateLimiter, LOOKUPS, type SharedTokenBuckets, WRITES } from './services/rate-limiter.ts';
import {
  createSharedSignInThrottle,
  createSignInThrottle,
  type SharedFailureWindows,
  SIGN_IN_THROTTLE_TRACKED,
  type SignInThrottleSettings,
} from './services/sign-in-throttle.ts';
import { getGatewayStats } from './services/stats.ts';
import { providerAccountsFromConfig } from './transports/provider-api.ts';
import { VERSION } from './version.ts';

/** What the configuration cannot give: the opened database, and what a caller may replace. */
export type DepsParts = {
  store: Store;
  /** Readiness probe: true while the database accepts writes. */
  isReady: () => boolean;
  /** The system clock unless given (tests give a fake one). */
  clock?: Clock;
  /** A logger at LOG_LEVEL unless given. */
  log?: Logger;
  /** The secrets /webhooks/* accept for every account: TEXTRELAY_INGEST_SECRET unless given. */
  ingestSecrets?: () => string[];
  /** The provider accounts' webhook secrets /webhooks/* accept, each for its own tenants: none unless given (the runtime's learns them). */
  providerSecrets?: () => readonly ProviderWebhookSecret[];
  /** `leaveToCourier` unless given (the runtime gives the sandbox's when it is the transport). */
  transportAtSend?: TransportAtSend;
  /** The provider accounts of upstream mode, built from the configuration unless given. */
  providers?: ProviderAccounts;
  /**
   * Where the send rate limit and the sign-in throttle count when several instances share the
   * database (`postgresSharedLimits`); in this process's memory unless given.
   */
  sharedLimits?: { tokenBuckets: SharedTokenBuckets; failureWindows: SharedFailureWindows };
};

/**
 * The dependencies of the services and the HTTP app, wired from the configuration: the one place
 * the server, the CLI, the tests' app and the benchmark build theirs. No I/O happens here.
 */
export function createDeps(config: Config, parts: DepsParts): AppDeps {
  const { isReady, clock = systemClock, sharedLimits } = parts;
  const notify = createNotifierHub();
  const accountCache = createAccountCache();
  // Whoever changed it (this process, another instance, a CLI command on PostgreSQL), what is kept is stale.
  notify.subscribe({ accountDataChanged: accountCache.clear });
  const store = cachingStore(parts.store, accountCache, notify.accountDataChanged);
  const perMinute = config.TEXTRELAY_RATE_LIMIT_PER_MINUTE;
  const writesPerMinute = config.TEXTRELAY_WRITE_RATE_LIMIT_PER_MINUTE;
  // Filled by the runtime once these deps exist (each carrier records through them); read at each scrape.
  const carriers = createCarrierDirectory(clock);
  const signInSettings: SignInThrottleSettings = {
    maxFailures: config.TEXTRELAY_INBOX_LOGIN_MAX_FAILURES,
    windowMs: config.TEXTRELAY_INBOX_LOGIN_WINDOW_SECONDS * 1000,
    maxTracked: SIGN_IN_THROTTLE_TRACKED,
  };
  return {
    store,
    groupCommit: createGroupCommit(store),
    accountCache,
    clock,
    log: parts.log ?? createLogger(config.LOG_LEVEL),
    sendRateLimiter: sharedLimits
      ? createSharedRateLimiter(clock, perMinute, sharedLimits.tokenBuckets)
      : createRateLimiter(clock, perMinute),
    writeRateLimiter: sharedLimits
      ? createSharedRateLimiter(clock, writesPerMinute, sharedLimits.tokenBuckets, WRITES)
      : createRateLimiter(clock, writesPerMinute, WRITES),
    lookupRateLimiter: sharedLimits
      ? createSharedRateLimiter(clock, config.TEXTRELAY_LOOKUP_RATE_LIMIT_PER_MINUTE, sharedLimits.tokenBuckets, LOOKUPS)
      : createRateLimiter(clock, config.TEXTRELAY_LOOKUP_RATE_LIMIT_PER_MINUTE, LOOKUPS),
    webhookUrlsPerType: config.TEXTRELAY_WEBHOOK_URLS_PER_TYPE,
    notify,
    displayTimeZone: config.TEXTRELAY_DISPLAY_TZ,
    defaultNumbersPerAccount: config.TEXTRELAY_NUMBERS_PER_ACCOUNT,
    quotas: { mediaBytes: config.TEXTRELAY_MEDIA_QUOTA_MB * 1024 * 1024, contacts: config.TEXTRELAY_CONTACTS_QUOTA },
    transportAtSend: parts.transportAtSend ?? leaveToCourier,
    providers: parts.providers ?? providerAccountsFromConfig(config),
    carriers,
    isReady,
    version: VERSION,
    checkCallbackUrl: createCallbackUrlCheck(outboundPolicyOf(config)),
    fetchMedia: createMediaFetcher(outboundPolicyOf(config)),
    publicUrl: config.TEXTRELAY_PUBLIC_URL?.replace(/\/+$/, ''),
    mediaUrl: config.TEXTRELAY_MEDIA_URL?.replace(/\/+$/, ''),
    transportName: transportKindOf(config.TEXTRELAY_TRANSPORT),
    ingestSecrets: parts.ingestSecrets ?? createIngestSecrets(config.TEXTRELAY_INGEST_SECRET).list,
    providerSecrets: parts.providerSecrets ?? (() => []),
    metrics: createMetrics({ version: VERSION, readStats: () => getGatewayStats({ store, clock }), readCarriers: carriers.health }),
    metricsEndpoint: { enabled: config.TEXTRELAY_METRICS, bearerToken: config.TEXTRELAY_METRICS_TOKEN },
    signInThrottle: sharedLimits
      ? createSharedSignInThrottle(clock, signInSettings, sharedLimits.failureWindows)
      : createSignInThrottle(clock, signInSettings),
    eventStreams: { perAccount: config.TEXTRELAY_EVENT_STREAMS_PER_ACCOUNT },
    proxy: {
      trustForwardedHeaders: config.TEXTRELAY_TRUST_PROXY,
      publicUrlIsHttps: config.TEXTRELAY_PUBLIC_URL !== undefined && new URL(config.TEXTRELAY_PUBLIC_URL).protocol === 'https:',
    },
  };
}
