import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/app.ts';
import { loadConfig } from '../../../src/config.ts';
import { createLogger } from '../../../src/logger.ts';
import { openRuntime } from '../../../src/runtime.ts';
import { createAccount } from '../../../src/services/accounts.ts';
import { ALICE } from '../../helpers/fixtures.ts';
import { jsonRequest, readReply } from '../../helpers/http.ts';
import { eventually } from '../../helpers/live.ts';
import { freshPostgresDatabase } from '../../helpers/postgres-database.ts';
import { startTcpProxy } from '../../helpers/tcp-proxy.ts';

/**
 * PostgreSQL stops while textrelay serves (a proxy in front of the tests' server stands for it):
 * requests are refused at once as "database unavailable", the outage and the recovery are logged
 * once each and without SQL, and the service works again by itself.
 */

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

type Line = { level: number; msg: string; [field: string]: unknown };

async function serveThroughProxy() {
  const database = await freshPostgresDatabase();
  cleanups.push(database.close);
  const url = new URL(database.url);
  const proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port) });
  cleanups.push(proxy.close);
  url.port = String(proxy.port);
  const lines: Line[] = [];
  const raw: string[] = [];
  const log = createLogger('info', {
    write(line: string) {
      raw.push(line);
      lines.push(JSON.parse(line) as Line);
    },
  });
  const config = { ...loadConfig({ TEXTRELAY_DATABASE_URL: url.toString() }), TEXTRELAY_RATE_LIMIT_PER_MINUTE: 0 };
  const runtime = await openRuntime(config, log);
  cleanups.push(runtime.close);
  const app = buildApp(runtime.deps);
  const account = await createAccount(runtime.deps, { email: 'outage@example.com', plan: 'sapphire' });
  const headers = { 'svc-api-key-id': account.api_key_id, 'svc-api-secret-key': account.api_secret_key };
  const send = async () => {
    const started = performance.now();
    const reply = await readReply(await app.request('/api/send-message', jsonRequest('POST', headers, { number: ALICE, content: 'hi' })));
    return { ...reply, ms: performance.now() - started };
  };
  return { proxy, lines, raw, send, isReady: runtime.deps.isReady };
}

describe('a PostgreSQL outage', () => {
  it('answers 503 "database unavailable" at once, logs the outage and the recovery once each, without SQL', async () => {
    const { proxy, lines, raw, send, isReady } = await serveThroughProxy();
    expect((await send()).status).toBe(202);

    await proxy.stop();
    const refused = [];
    for (let i = 0; i < 30; i++) refused.push(await send());
    for (const reply of refused) {
      expect(reply.status).toBe(503);
      expect(reply.body).toMatchObject({ status: 'ERROR', error_code: 5003 });
      expect(reply.body.error_message).toMatch(/database cannot be reached/);
      expect(reply.ms).toBeLessThan(2_000);
    }
    await eventually('the outage to be logged', async () => (isReady() ? undefined : true), 15_000);

    await proxy.start();
    await eventually('the recovery to be logged', async () => (isReady() ? true : undefined), 15_000);
    expect((await send()).status).toBe(202);

    expect(lines.filter((line) => /database unavailable/.test(line.msg))).toHaveLength(1);
    expect(lines.filter((line) => line.msg === 'database available again')).toHaveLength(1);
    expect(lines.filter((line) => /overloaded|busy/.test(line.msg))).toEqual([]);
    for (const line of raw) expect(line).not.toMatch(/insert into|select .* from/i);
  });
});
