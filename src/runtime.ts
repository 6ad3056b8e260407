import type { Logger } from 'pino';
import type { AppDeps } from './http/app-deps.ts';
import { outboundPolicyOf, type Config } from './config.ts';
import { createIngestSecrets, type IngestSecrets } from './http/ingest-auth.ts';
import { closeDatabase, isWritable, migrateDatabase, openDatabase, type Db } from './db/connection.ts';
import { watchStore } from './db/damage-watch.ts';
import { checkIntegrity, damagedFile, type IntegrityCheck } from './db/integrity.ts';
import { refuseMissingColumns } from './db/schema-shape.ts';
import { refuseUnknownMigrations } from './db/schema-version.ts';
import { isDamage } from './db/sqlite-codes.ts';
import { createStore } from './db/store.ts';
import { createMetrics } from './metrics/metrics.ts';
import { systemClock, type Clock } from './services/clock.ts';
import { leaveToCourier } from './services/deps.ts';
import { createGroupCommit } from './services/group-commit.ts';
import { createNotifierHub, type NotifierHub } from './services/notifier.ts';
import { createRateLimiter } from './services/rate-limiter.ts';
import { createSignInThrottle, SIGN_IN_THROTTLE_TRACKED } from './services/sign-in-throttle.ts';
import { getGatewayStats } from './services/stats.ts';
import { createSandboxAtSend, type SandboxAtSend } from './transports/sandbox.ts';
import { VERSION } from './version.ts';
import { createCallbackUrlCheck } from './webhooks/ssrf.ts';

export type OpenOptions = {
  /** Run SQLite's quick_check first (serve and migrate): the other commands start without reading the whole file. */
  checkIntegrity?: boolean;
  clock?: Clock;
};

/**
 * Opens the database for this build, or refuses it with a StartupError naming the file: written by
 * a newer textrelay, damaged (when checked), or lacking a column this build reads. Then migrates it.
 */
export function openCheckedDatabase(config: Config, checkIntegrityFirst: boolean): { db: Db; integrity: IntegrityCheck | 'not asked' } {
  const file = config.TEXTRELAY_DB;
  const db = openDatabase(file);
  try {
    refuseUnknownMigrations(db, file);
    const integrity = checkIntegrityFirst ? checkIntegrity(db, file, config.TEXTRELAY_INTEGRITY_CHECK_MAX_MB * 1024 * 1024) : 'not asked';
    migrateDatabase(db);
    refuseMissingColumns(db, file);
    return { db, integrity };
  } catch (error) {
    closeDatabase(db);
    if (isDamage(error)) throw damagedFile(file, (error as Error).message);
    throw error;
  }
}

/** Opens the checked database and wires the dependencies every command shares. */
export function openRuntime(
  config: Config,
  log: Logger,
  { checkIntegrity: checkIntegrityFirst = false, clock = systemClock }: OpenOptions = {},
): { db: Db; deps: AppDeps; notifier: NotifierHub; ingestSecrets: IngestSecrets; sandboxAtSend: SandboxAtSend | undefined } {
  const { db, integrity } = openCheckedDatabase(config, checkIntegrityFirst);
  if (integrity === 'skipped') {
    log.warn({ db: config.TEXTRELAY_DB, limitMb: config.TEXTRELAY_INTEGRITY_CHECK_MAX_MB }, 'integrity check skipped: the database is larger than TEXTRELAY_INTEGRITY_CHECK_MAX_MB');
  }
  const notifier = createNotifierHub();
  const sandboxAtSend = config.TEXTRELAY_TRANSPORT === 'sandbox' ? createSandboxAtSend({ stepMs: config.TEXTRELAY_SANDBOX_STEP_MS }) : undefined;
  const ingestSecrets = createIngestSecrets(config.TEXTRELAY_INGEST_SECRET);
  const watched = watchStore(createStore(db), config.TEXTRELAY_DB);
  const store = watched.store;
  const deps: AppDeps = {
    store,
    groupCommit: createGroupCommit(store),
    clock,
    log,
    sendRateLimiter: createRateLimiter(clock, config.TEXTRELAY_RATE_LIMIT_PER_MINUTE),
    notify: notifier,
    displayTimeZone: config.TEXTRELAY_DISPLAY_TZ,
    defaultNumbersPerAccount: config.TEXTRELAY_NUMBERS_PER_ACCOUNT,
    transportAtSend: sandboxAtSend ?? leaveToCourier,
    isReady: () => !watched.damaged() && isWritable(db),
    version: VERSION,
    checkCallbackUrl: createCallbackUrlCheck(outboundPolicyOf(config)),
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
  return { db, deps, notifier, ingestSecrets, sandboxAtSend };
}

export type Runtime = ReturnType<typeof openRuntime>;
