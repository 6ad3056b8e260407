import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { migrateDatabase, openDatabase } from '../src/db/sqlite/connection.ts';
import { createSqliteStore } from '../src/db/sqlite/store.ts';
import { createDeps } from '../src/deps.ts';
import { leaveToCourier } from '../src/services/deps.ts';

/** createDeps: the one wiring of the dependencies, from the configuration the server reads. */

function depsFor(env: Record<string, string>) {
  const db = openDatabase(':memory:');
  migrateDatabase(db);
  return createDeps(loadConfig({ TEXTRELAY_DB: ':memory:', ...env }), {
    store: createSqliteStore(db, ':memory:').store,
    isReady: () => true,
    log: pino({ level: 'silent' }),
  });
}

describe('createDeps', () => {
  it('takes each setting from the configuration', () => {
    const deps = depsFor({
      TEXTRELAY_TRANSPORT: 'upstream',
      TEXTRELAY_UPSTREAM_URL: 'https://provider.example',
      TEXTRELAY_UPSTREAM_KEY_ID: 'key',
      TEXTRELAY_UPSTREAM_SECRET: 'secret',
      TEXTRELAY_PUBLIC_URL: 'https://relay.example',
      TEXTRELAY_TRUST_PROXY: 'true',
      TEXTRELAY_DISPLAY_TZ: 'Europe/Paris',
      TEXTRELAY_NUMBERS_PER_ACCOUNT: '3',
      TEXTRELAY_METRICS_TOKEN: 'a-token-of-sixteen-chars',
      TEXTRELAY_INGEST_SECRET: 'shared-ingest-secret',
    });
    expect(deps.transportName).toBe('upstream');
    expect(deps.proxy).toEqual({ trustForwardedHeaders: true, publicUrlIsHttps: true });
    expect(deps.displayTimeZone).toBe('Europe/Paris');
    expect(deps.defaultNumbersPerAccount).toBe(3);
    expect(deps.metricsEndpoint).toEqual({ enabled: true, bearerToken: 'a-token-of-sixteen-chars' });
    expect(deps.ingestSecrets()).toEqual(['shared-ingest-secret']);
    expect(deps.transportAtSend).toBe(leaveToCourier);
  });

  it('refuses private callback URLs when the configuration does', () => {
    expect(() => depsFor({ TEXTRELAY_ALLOW_PRIVATE_CALLBACKS: 'false' }).checkCallbackUrl('http://127.0.0.1/cb')).toThrow();
    expect(() => depsFor({ TEXTRELAY_ALLOW_PRIVATE_CALLBACKS: 'true' }).checkCallbackUrl('http://127.0.0.1/cb')).not.toThrow();
  });
});
