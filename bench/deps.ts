import pino from 'pino';
import { migrateDatabase, openDatabase } from '../src/db/connection.ts';
import { createStore } from '../src/db/store.ts';
import { systemClock } from '../src/services/clock.ts';
import { leaveToCourier, silentNotifier, type ServiceDeps } from '../src/services/deps.ts';
import { createGroupCommit } from '../src/services/group-commit.ts';
import { createRateLimiter } from '../src/services/rate-limiter.ts';

/**
 * Service deps on a migrated database file, for the scripts that seed or drive the services
 * directly: no rate limit (the benchmark measures the machine, not an account's quota), nobody
 * listening to the notifier.
 */
export function openBenchDeps(file: string, logLevel: 'silent' | 'warn' = 'silent') {
  const db = openDatabase(file);
  migrateDatabase(db);
  const store = createStore(db);
  const deps: ServiceDeps = {
    store,
    groupCommit: createGroupCommit(store),
    clock: systemClock,
    log: pino({ level: logLevel }),
    sendRateLimiter: createRateLimiter(systemClock, 0),
    notify: silentNotifier,
    displayTimeZone: 'UTC',
    defaultNumbersPerAccount: 4,
    transportAtSend: leaveToCourier,
  };
  return { db, deps };
}
