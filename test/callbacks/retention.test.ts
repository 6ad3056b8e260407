import { describe, expect, it, vi } from 'vitest';
import { createRetention } from '../../src/retention.ts';
import { recordAttempts } from '../../src/services/callback-dispatch.ts';
import type { TestAccount, TestApp } from '../helpers/app.ts';
import { BOB, CAROL, show } from '../helpers/fixtures.ts';
import { claimDue, finishedAs } from '../helpers/outbox.ts';
import { appWithAccount, dispatcherFor, receiver, report, sendWithCallback } from './setup.ts';

const DAY_MS = 86_400_000;
const RETENTION = { deliveryRetentionMs: 30 * DAY_MS, orphanEventRetentionMs: 0, unroutedRetentionMs: 0 };

async function deliveries(t: TestApp, account: TestAccount): Promise<any[]> {
  const reply = await t.call('GET', '/accounts/webhooks/deliveries?limit=200', account);
  expect(reply.status, show(reply.body)).toBe(200);
  return reply.body.deliveries;
}

/** A status callback to a receiver nobody runs, due now. */
async function enqueueNow(t: TestApp, accountId: string, webhookId: string, messageHandle: string): Promise<void> {
  const entry = {
    webhookId,
    accountId,
    messageHandle,
    eventType: 'message.status' as const,
    url: 'http://127.0.0.1:9/hook',
    payload: '{}',
  };
  await t.store.outbox.enqueue(entry, t.clock.now());
}

function attemptCount(t: TestApp): number {
  return (t.db.$client.prepare('select count(*) as n from webhook_attempts').get() as { n: number }).n;
}

describe('delivery log retention', () => {
  it('forgets deliveries delivered or given up before the retention, with their attempts, and nothing else', async () => {
    const { t, account } = await appWithAccount();
    const ok = await receiver();
    const gone = await receiver((_request, _index, response) => response.writeHead(410).end());
    const failingOnce = await receiver((_request, index, response) => response.writeHead(index === 0 ? 500 : 200).end());
    const dispatcher = dispatcherFor(t);

    await sendWithCallback(t, account, ok.url());
    await sendWithCallback(t, account, gone.url(), BOB);
    const retrying = await sendWithCallback(t, account, failingOnce.url(), CAROL);
    await report(t, retrying, 'SENT'); // held behind the QUEUED callback that is retrying
    await dispatcher.runOnce();
    const old = await deliveries(t, account);
    expect(old.map((d) => [d.url, d.state])).toEqual([
      [failingOnce.url(), 'held'],
      [failingOnce.url(), 'pending'],
      [gone.url(), 'failed'],
      [ok.url(), 'delivered'],
    ]);

    t.clock.advance(31 * DAY_MS);
    const recent = await sendWithCallback(t, account, ok.url());
    await dispatcher.runOnce(); // delivers the new one; the retry falls due too
    const before = await deliveries(t, account);
    expect(before.filter((d) => d.state === 'delivered').map((d) => d.message_handle)).toContain(recent);
    const retryingIds = old.filter((d) => d.state === 'pending' || d.state === 'held').map((d) => d.id);

    const { webhook_deliveries: pruned } = await createRetention(t.deps, RETENTION).prunePass();

    expect(pruned, 'the delivered and the given-up one of 31 days ago').toBe(2);
    const after = await deliveries(t, account);
    expect(after.map((d) => d.id).sort()).toEqual(
      before
        .filter((d) => !old.slice(2).some((o) => o.id === d.id))
        .map((d) => d.id)
        .sort(),
    );
    expect(after.map((d) => d.id)).toEqual(expect.arrayContaining(retryingIds));
    expect(attemptCount(t), 'only the attempts of the deliveries kept').toBe(after.reduce((sum, d) => sum + d.attempts.length, 0));
    const replay = await t.call('POST', `/accounts/webhooks/deliveries/${old[3].id}/replay`, account);
    expect(replay.status, 'a forgotten delivery is gone').toBe(404);
  });

  it('keeps a delivery that is old but still retrying, and its held followers, which then go out in order', async () => {
    const { t, account } = await appWithAccount();
    const failingOnce = await receiver((_request, index, response) => response.writeHead(index === 0 ? 500 : 200).end());
    const dispatcher = dispatcherFor(t);
    const handle = await sendWithCallback(t, account, failingOnce.url());
    await report(t, handle, 'SENT');
    await report(t, handle, 'DELIVERED');
    await dispatcher.runOnce();

    t.clock.advance(40 * DAY_MS);
    expect((await createRetention(t.deps, RETENTION).prunePass()).webhook_deliveries).toBe(0);
    for (let i = 0; i < 3; i += 1) await dispatcher.runOnce();

    expect(failingOnce.received.map((request) => (request.json as any).status)).toEqual(['QUEUED', 'QUEUED', 'SENT', 'DELIVERED']);
  });

  it('walks a log longer than one batch, and stops at the first delivery younger than the retention', async () => {
    const { t, account } = await appWithAccount();
    const total = 1_234;
    const accountId = (await t.store.accounts.findByKeyId(account.api_key_id))!.id;
    for (let i = 0; i < total; i += 1) {
      await enqueueNow(t, accountId, `msg_old${i}`, `m${i}`);
    }
    const claimed = await claimDue(t.deps, total);
    await recordAttempts(
      t.deps,
      claimed.map((row) => finishedAs(row, { kind: 'delivered' }, { statusCode: 204 })),
    );
    t.clock.advance(30 * DAY_MS + 1);
    await enqueueNow(t, accountId, 'msg_new', 'm-new');

    expect((await createRetention(t.deps, { ...RETENTION, batchPauseMs: 0 }).prunePass()).webhook_deliveries).toBe(total);
    expect((await deliveries(t, account)).map((d) => d.id)).toEqual(['msg_new']);
    expect(attemptCount(t)).toBe(0);
  });

  it('ends a pass at the first delivery younger than the retention, without reading on', async () => {
    const { t, account } = await appWithAccount();
    const accountId = (await t.store.accounts.findByKeyId(account.api_key_id))!.id;
    for (let i = 0; i < 3; i += 1) {
      await enqueueNow(t, accountId, `msg_${i}`, `m${i}`);
    }
    expect(await t.store.outbox.pruneFinished(t.clock.now() - 1, 0, 2)).toEqual({ pruned: 0, resumeAfter: null });
  });

  it('runs by itself once started, and not at all with a retention of 0', async () => {
    const { t, account } = await appWithAccount();
    const ok = await receiver();
    await sendWithCallback(t, account, ok.url());
    await dispatcherFor(t).runOnce();
    t.clock.advance(31 * DAY_MS);

    const keepForever = createRetention(t.deps, { ...RETENTION, deliveryRetentionMs: 0, firstPassAfterMs: 1 });
    keepForever.start();
    await new Promise((resolve) => setTimeout(resolve, 50));
    await keepForever.stop();
    expect(await deliveries(t, account)).toHaveLength(1);

    const retention = createRetention(t.deps, { ...RETENTION, firstPassAfterMs: 1 });
    retention.start();
    await vi.waitFor(async () => expect(await deliveries(t, account)).toHaveLength(0), { timeout: 2_000 });
    await retention.stop();
  });
});
