import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../../helpers/live.ts';
import { servedThroughProxy } from '../../helpers/postgres-outage.ts';

/**
 * PostgreSQL stops while textrelay serves (a proxy in front of the tests' server stands for it):
 * requests are refused at once as "database unavailable", the outage and the recovery are logged
 * once each and without SQL, and the service works again by itself.
 */

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('a PostgreSQL outage', () => {
  it('answers 503 "database unavailable" at once, logs the outage and the recovery once each, without SQL', async () => {
    const { proxy, lines, raw, send, isReady } = await servedThroughProxy(cleanups);
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
