import { loadConfig } from '../src/config.ts';
import { migrateDatabase, openDatabase } from '../src/db/sqlite/connection.ts';
import { createSqliteStore } from '../src/db/sqlite/store.ts';
import { createDeps } from '../src/deps.ts';

/**
 * The deps `serve` builds, on a migrated database file, for the scripts that seed or drive the
 * services directly: no rate limit (the benchmark measures the machine, not an account's quota),
 * nobody listening to the notifier.
 */
export function openBenchDeps(file: string, logLevel: 'silent' | 'warn' = 'silent') {
  const db = openDatabase(file);
  migrateDatabase(db);
  const config = loadConfig({
    TEXTRELAY_DB: file,
    LOG_LEVEL: logLevel,
    TEXTRELAY_RATE_LIMIT_PER_MINUTE: '0',
    TEXTRELAY_NUMBERS_PER_ACCOUNT: '4',
  });
  const deps = createDeps(config, { store: createSqliteStore(db, ':memory:').store, isReady: () => true });
  return { db, deps };
}
