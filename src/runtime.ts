import type { Logger } from 'pino';
import type { AppDeps } from './app.ts';
import type { Config } from './config.ts';
import { createIngestSecrets, type IngestSecrets } from './http/ingest-auth.ts';
import { isWritable, migrateDatabase, openDatabase, type Db } from './db/connection.ts';
import { createStore } from './db/store.ts';
import { createMetrics } from './metrics/metrics.ts';
import { systemClock, type Clock } from './services/deps.ts';
import { createGroupCommit } from './services/group-commit.ts';
import { createNotifierHub, type NotifierHub } from './services/notifier.ts';
import { createRateLimiter } from './services/rate-limiter.ts';
import { createSignInThrottle, SIGN_IN_THROTTLE_TRACKED } from './services/sign-in-throttle.ts';
import { getGatewayStats } from './services/stats.ts';
import { VERSION } from './version.ts';
import { createCallbackUrlCheck } from './webhooks/ssrf.ts';

/** Opens and migrates the database and wires the dependencies every command shares. */
export function openRuntime(
  config: Config,
  log: Logger,
  clock: Clock = systemClock,
): { db: Db; deps: AppDeps; notifier: NotifierHub; ingestSecrets: IngestSecrets } {
  const db = openDatabase(config.TEXTRELAY_DB);
  migrateDatabase(db);
  const notifier = createNotifierHub();
  const ingestSecrets = createIngestSecrets(config.TEXTRELAY_INGEST_SECRET);
  const store = createStore(db);
  const deps: AppDeps = {
    store,
    groupCommit: createGroupCommit(store),
    clock,
    log,
    sendRateLimiter: createRateLimiter(clock, config.TEXTRELAY_RATE_LIMIT_PER_MINUTE),
    notify: notifier,
    displayTimeZone: config.TEXTRELAY_DISPLAY_TZ,
    defaultNumbersPerAccount: config.TEXTRELAY_NUMBERS_PER_ACCOUNT,
    ...(config.TEXTRELAY_TRANSPORT === 'sandbox' ? { sandboxInline: { stepMs: config.TEXTRELAY_SANDBOX_STEP_MS } } : {}),
    isReady: () => isWritable(db),
    version: VERSION,
    checkCallbackUrl: createCallbackUrlCheck({ allowPrivate: config.TEXTRELAY_ALLOW_PRIVATE_CALLBACKS }),
    transportName: config.TEXTRELAY_TRANSPORT,
    ingestSecrets: ingestSecrets.list,
    metrics: createMetrics({ version: VERSION, readStats: () => getGatewayStats({ store, clock }) }),
    metricsEndpoint: { enabled: config.TEXTRELAY_METRICS, bearerToken: config.TEXTRELAY_METRICS_TOKEN },
    signInThrottle: createSignInThrottle(clock, {
      maxFailures: config.TEXTRELAY_INBOX_LOGIN_MAX_FAILURES,
      windowMs: config.TEXTRELAY_INBOX_LOGIN_WINDOW_SECONDS * 1000,
      maxTracked: SIGN_IN_THROTTLE_TRACKED,
    }),
    proxy: {
      trustForwardedHeaders: config.TEXTRELAY_TRUST_PROXY,
      publicUrlIsHttps: config.TEXTRELAY_PUBLIC_URL !== undefined && new URL(config.TEXTRELAY_PUBLIC_URL).protocol === 'https:',
    },
  };
  return { db, deps, notifier, ingestSecrets };
}
