import { describe, expect, it } from 'vitest';
import type { ClaimedDelivery, FinishedDelivery } from '../../src/db/sqlite/queries/delivery-rows.ts';
import { createCallbackClaims } from '../../src/domain/callback-claims.ts';
import { recordAndClaim, recordAttempts } from '../../src/services/callback-dispatch.ts';
import type { TestAccount, TestApp } from '../helpers/app.ts';
import { show } from '../helpers/fixtures.ts';
import { claimDue, finishedAs } from '../helpers/outbox.ts';
import { appWithAccount, dispatcherFor, receiver, report, sendWithCallback } from './setup.ts';

/**
 * A callback enqueued behind an unfinished one of the same message and URL waits; finishing
 * that one (delivered or given up) lets it go in the same transaction: leased at once in the slot
 * the one before it left when the dispatcher is claiming, made due otherwise.
 */

/** A dispatcher's step with 10 free slots: records `finished`, then claims. */
async function recordAndClaimTen(t: TestApp, finished: FinishedDelivery[], perHostLimit = 10): Promise<ClaimedDelivery[]> {
  return await recordAndClaim(
    t.deps,
    finished,
    createCallbackClaims({ concurrency: 10, perHostLimit, perAccountLimit: 10 }).claim(),
    60_000,
  );
}

function statusOf(row: ClaimedDelivery): string {
  return JSON.parse(row.payload).status;
}

async function deliveries(t: TestApp, account: TestAccount): Promise<any[]> {
  const reply = await t.call('GET', '/accounts/webhooks/deliveries?limit=50', account);
  expect(reply.status, show(reply.body)).toBe(200);
  return reply.body.deliveries;
}

/** A message whose QUEUED, SENT and DELIVERED callbacks are in the outbox, the last two waiting. */
async function messageWithThreeCallbacks() {
  const { t, account } = await appWithAccount();
  const handle = await sendWithCallback(t, account, 'http://127.0.0.1:9/hook');
  await report(t, handle, 'SENT');
  await report(t, handle, 'DELIVERED');
  return { t, account };
}

describe('waiting callbacks: let go when the one before them finishes', () => {
  it('a delivered callback leaves its slot to the next one of its message, leased in the same transaction', async () => {
    const { t, account } = await messageWithThreeCallbacks();
    const { secret } = await (await t.call('GET', '/accounts/webhooks', account)).body;
    const [queued] = await claimDue(t.deps, 10);
    expect(queued && statusOf(queued), 'only the first callback is claimable').toBe('QUEUED');

    const next = await recordAndClaimTen(t, [finishedAs(queued!, { kind: 'delivered' }, { statusCode: 200 })]);

    expect(next.map(statusOf)).toEqual(['SENT']);
    expect(next[0]!.webhookSecret, 'signed like any claimed row').toBe(secret);
    const states = (await deliveries(t, account)).map((d) => [d.payload.status, d.state, d.next_attempt_at]);
    expect(states, 'DELIVERED still waiting: no next attempt').toEqual([
      ['DELIVERED', 'held', null],
      ['SENT', 'delivering', null],
      ['QUEUED', 'delivered', null],
    ]);
  });

  it('a given-up callback lets the next one go too', async () => {
    const { t } = await messageWithThreeCallbacks();
    const [queued] = await claimDue(t.deps, 10);
    const next = await recordAndClaimTen(t, [finishedAs(queued!, { kind: 'failed' }, { statusCode: 410 })]);
    expect(next.map(statusOf)).toEqual(['SENT']);
  });

  it('a retried callback keeps the next one waiting', async () => {
    const { t, account } = await messageWithThreeCallbacks();
    const [queued] = await claimDue(t.deps, 10);
    const next = await recordAndClaimTen(t, [
      finishedAs(queued!, { kind: 'retry', nextAttemptAt: t.clock.now() + 5_000 }, { statusCode: 500 }),
    ]);
    expect(next).toEqual([]);
    const waiting = (await deliveries(t, account)).filter((d) => d.payload.status !== 'QUEUED');
    expect(waiting.map((d) => [d.state, d.next_attempt_at])).toEqual([
      ['held', null],
      ['held', null],
    ]);
  });

  it('a next callback the claim does not start (its host is full, or the dispatcher is stopping) becomes due now instead', async () => {
    const { t, account } = await messageWithThreeCallbacks();
    const [queued] = await claimDue(t.deps, 10);
    const next = await recordAndClaimTen(t, [finishedAs(queued!, { kind: 'delivered' }, { statusCode: 200 })], 0);
    expect(next).toEqual([]);
    const sent = (await deliveries(t, account)).find((d) => d.payload.status === 'SENT');
    expect(sent).toMatchObject({ state: 'pending', next_attempt_at: new Date(t.clock.now()).toISOString() });

    const [claimed] = await claimDue(t.deps, 10);
    expect(claimed && statusOf(claimed)).toBe('SENT');
    await recordAttempts(t.deps, [finishedAs(claimed!, { kind: 'delivered' }, { statusCode: 200 })]);
    const delivered = (await deliveries(t, account)).find((d) => d.payload.status === 'DELIVERED');
    expect(delivered, 'finishing without claiming (shutdown) only makes it due').toMatchObject({
      state: 'pending',
      next_attempt_at: new Date(t.clock.now()).toISOString(),
    });
  });

  it('a replayed earlier callback goes before a later one waiting behind it, and the next waits while a callback is in flight', async () => {
    const { t, account } = await appWithAccount();
    const hook = await receiver();
    const handle = await sendWithCallback(t, account, hook.url());
    await report(t, handle, 'SENT');
    const dispatcher = dispatcherFor(t);
    expect(await dispatcher.runOnce()).toBe(2);

    const queuedId = hook.received[0]!.headers['webhook-id'];
    const replayed = await t.call('POST', `/accounts/webhooks/deliveries/${queuedId}/replay`, account);
    expect(replayed.status, show(replayed.body)).toBe(200);
    await report(t, handle, 'DELIVERED'); // enqueued behind the replayed QUEUED callback: waits

    const [again] = await claimDue(t.deps, 10);
    expect(again && statusOf(again), 'the waiting DELIVERED callback is not claimable').toBe('QUEUED');
    const next = await recordAndClaimTen(t, [finishedAs(again!, { kind: 'delivered' }, { statusCode: 200 })]);
    expect(next.map(statusOf)).toEqual(['DELIVERED']);

    // The whole loop, with a replay while a later callback is in flight: nothing overtakes.
    await report(t, handle, 'READ');
    const sentId = hook.received[1]!.headers['webhook-id'];
    await recordAttempts(t.deps, [finishedAs(next[0]!, { kind: 'delivered' }, { statusCode: 200 })]);
    expect((await t.call('POST', `/accounts/webhooks/deliveries/${sentId}/replay`, account)).status).toBe(200);
    const [sentAgain] = await claimDue(t.deps, 10);
    expect(sentAgain && statusOf(sentAgain), 'READ was let go when DELIVERED finished; the replayed SENT comes first').toBe('SENT');
    const [read] = await claimDue(t.deps, 10);
    expect(read, 'READ waits while the replayed SENT is in flight').toBeUndefined();
    const afterSent = await recordAndClaimTen(t, [finishedAs(sentAgain!, { kind: 'delivered' }, { statusCode: 200 })]);
    expect(afterSent.map(statusOf)).toEqual(['READ']);
  });

  it('a callback finishing while an earlier one was replayed does not let the next one overtake that replay', async () => {
    const { t, account } = await appWithAccount();
    const handle = await sendWithCallback(t, account, 'http://127.0.0.1:9/hook');
    await report(t, handle, 'SENT');
    const [queued] = await claimDue(t.deps, 10);
    const [sent] = await recordAndClaimTen(t, [finishedAs(queued!, { kind: 'delivered' }, { statusCode: 200 })]);
    await report(t, handle, 'DELIVERED'); // waits behind SENT, in flight
    expect((await t.call('POST', `/accounts/webhooks/deliveries/${queued!.webhookId}/replay`, account)).status).toBe(200);

    const afterSent = await recordAndClaimTen(t, [finishedAs(sent!, { kind: 'delivered' }, { statusCode: 200 })]);
    expect(afterSent.map(statusOf), 'the replayed QUEUED goes; DELIVERED keeps waiting').toEqual(['QUEUED']);
    const afterReplay = await recordAndClaimTen(t, [finishedAs(afterSent[0]!, { kind: 'delivered' }, { statusCode: 200 })]);
    expect(afterReplay.map(statusOf)).toEqual(['DELIVERED']);
  });

  it('the dispatcher delivers a message’s callbacks in order, each starting when the one before it is delivered', async () => {
    const { t, account } = await appWithAccount();
    const hook = await receiver();
    const handle = await sendWithCallback(t, account, hook.url());
    for (const status of ['SENT', 'DELIVERED', 'READ'] as const) await report(t, handle, status);
    const dispatcher = dispatcherFor(t);
    dispatcher.start();
    await expect.poll(() => hook.received.length).toBe(4);
    expect(hook.received.map((request) => request.json.status)).toEqual(['QUEUED', 'SENT', 'DELIVERED', 'READ']);
    await dispatcher.stop();
    expect((await deliveries(t, account)).map((d) => d.state)).toEqual(['delivered', 'delivered', 'delivered', 'delivered']);
  });
});
