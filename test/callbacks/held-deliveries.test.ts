import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestAccount, type TestApp } from '../helpers/app.ts';
import { show } from '../helpers/fixtures.ts';
import { killAll, runCli } from '../helpers/process.ts';
import { loggedIn, textOf } from '../inbox/client.ts';
import { appWithAccount, onCleanup, report, sendWithCallback } from './setup.ts';

afterEach(killAll);

async function deliveries(t: TestApp, account: TestAccount): Promise<any[]> {
  const reply = await t.call('GET', '/accounts/webhooks/deliveries', account);
  expect(reply.status, show(reply.body)).toBe(200);
  return reply.body.deliveries;
}

/** QUEUED, SENT and DELIVERED callbacks of one message to an unreachable URL: the last two wait for QUEUED. */
async function heldBehindQueued(t: TestApp, account: TestAccount) {
  const handle = await sendWithCallback(t, account, 'http://127.0.0.1:9/hook');
  await report(t, handle, 'SENT');
  await report(t, handle, 'DELIVERED');
  const [delivered, sent, queued] = await deliveries(t, account);
  return { handle, queued, sent, delivered };
}

describe('held deliveries', () => {
  it('show state held and the id of the delivery they wait for, with no next attempt', async () => {
    const { t, account } = await appWithAccount();
    const { queued, sent, delivered } = await heldBehindQueued(t, account);
    expect(queued).toMatchObject({ state: 'pending', held_behind: null });
    expect(queued.next_attempt_at).not.toBeNull();
    for (const held of [sent, delivered]) {
      expect(held, show(held)).toMatchObject({ state: 'held', held_behind: queued.id, attempt_count: 0, next_attempt_at: null });
    }
  });

  it('a replay of a held delivery leaves it waiting and says for which one', async () => {
    const { t, account } = await appWithAccount();
    const { queued, delivered } = await heldBehindQueued(t, account);
    const reply = await t.call('POST', `/accounts/webhooks/deliveries/${delivered.id}/replay`, account);
    expect(reply.status, show(reply.body)).toBe(200);
    expect(reply.body.delivery).toMatchObject({ id: delivered.id, state: 'held', held_behind: queued.id, next_attempt_at: null });
  });

  it('the inbox deliveries page says held behind which delivery', async () => {
    const { t, account } = await appWithAccount();
    const { queued } = await heldBehindQueued(t, account);
    const page = await (await loggedIn(t, account)).get('/inbox/deliveries');
    expect(page.status).toBe(200);
    expect(textOf(page.html)).toContain(`held behind ${queued.id}`);
  });

  it('the CLI lists held deliveries with their blocker and refuses to jump the queue on replay', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'textrelay-held-'));
    onCleanup(() => rmSync(dir, { recursive: true, force: true }));
    const database = join(dir, 'textrelay.db');
    const t = makeTestApp({ database });
    onCleanup(() => {
      t.db.$client.close();
    });
    const account = await t.createAccount();
    const { queued, delivered } = await heldBehindQueued(t, account);
    const env = { TEXTRELAY_DB: database, LOG_LEVEL: 'warn' };

    const listed = await runCli(['webhooks', 'list'], env);
    expect(listed.code, show(listed)).toBe(0);
    const line = listed.stdout.split('\n').find((row) => row.startsWith(delivered.id));
    expect(line).toContain(`held behind ${queued.id}`);

    const replayed = await runCli(['webhooks', 'replay', '--id', delivered.id], env);
    expect(replayed.code, show(replayed)).toBe(0);
    expect(replayed.stdout).toContain(`held behind ${queued.id}`);
  });
});
