import { describe, expect, it } from 'vitest';
import type { ClaimedDelivery, ClaimFilter } from '../../src/db/queries/outbox.ts';
import { claimDueDeliveries, finishAndClaimDeliveries, finishDeliveries } from '../../src/services/webhook-dispatch.ts';
import type { TestAccount, TestApp } from '../helpers/app.ts';
import { show } from '../helpers/fixtures.ts';
import { finishedAs } from '../helpers/outbox.ts';
import { appWithAccount, dispatcherFor, receiver, report, sendWithCallback } from './setup.ts';

/**
 * A callback enqueued behind an unfinished one of the same message and URL is held; finishing
 * that one (delivered or given up) lets it go in the same transaction: leased at once in the slot
 * its predecessor left when the dispatcher is claiming, made due otherwise.
 */

const takeAll: ClaimFilter = () => 'take';
const CLAIM = { leaseMs: 60_000, limit: 10, accept: takeAll };

function statusOf(row: ClaimedDelivery): string {
  return JSON.parse(row.payload).status;
}

async function deliveries(t: TestApp, account: TestAccount): Promise<any[]> {
  const reply = await t.call('GET', '/accounts/webhooks/deliveries?limit=50', account);
  expect(reply.status, show(reply.body)).toBe(200);
  return reply.body.deliveries;
}

/** A message whose QUEUED, SENT and DELIVERED callbacks are in the outbox, the last two held. */
async function messageWithThreeCallbacks() {
  const { t, account } = appWithAccount();
  const handle = await sendWithCallback(t, account, 'http://127.0.0.1:9/hook');
  report(t, handle, 'SENT');
  report(t, handle, 'DELIVERED');
  return { t, account };
}

describe('held callbacks: let go when the one before them finishes', () => {
  it('a delivered callback hands its slot to the next one of its message, leased in the same transaction', async () => {
    const { t, account } = await messageWithThreeCallbacks();
    const { secret } = (await t.call('GET', '/accounts/webhooks', account)).body;
    const [queued] = claimDueDeliveries(t.deps, { leaseMs: 60_000, limit: 10 });
    expect(queued && statusOf(queued), 'only the first callback is claimable').toBe('QUEUED');

    const next = finishAndClaimDeliveries(t.deps, [finishedAs(queued!, { kind: 'delivered' }, { statusCode: 200 })], CLAIM);

    expect(next.map(statusOf)).toEqual(['SENT']);
    expect(next[0]!.webhookSecret, 'signed like any claimed row').toBe(secret);
    const states = (await deliveries(t, account)).map((d) => [d.payload.status, d.state, d.next_attempt_at]);
    expect(states, 'DELIVERED still held: no next attempt').toEqual([
      ['DELIVERED', 'pending', null],
      ['SENT', 'delivering', null],
      ['QUEUED', 'delivered', null],
    ]);
  });

  it('a given-up callback lets the next one go too', async () => {
    const { t } = await messageWithThreeCallbacks();
    const [queued] = claimDueDeliveries(t.deps, { leaseMs: 60_000, limit: 10 });
    const next = finishAndClaimDeliveries(t.deps, [finishedAs(queued!, { kind: 'failed' }, { statusCode: 410 })], CLAIM);
    expect(next.map(statusOf)).toEqual(['SENT']);
  });

  it('a retried callback keeps the next one held', async () => {
    const { t, account } = await messageWithThreeCallbacks();
    const [queued] = claimDueDeliveries(t.deps, { leaseMs: 60_000, limit: 10 });
    const next = finishAndClaimDeliveries(t.deps, [finishedAs(queued!, { kind: 'retry', nextAttemptAt: t.clock.now() + 5_000 }, { statusCode: 500 })], CLAIM);
    expect(next).toEqual([]);
    const held = (await deliveries(t, account)).filter((d) => d.payload.status !== 'QUEUED');
    expect(held.map((d) => [d.state, d.next_attempt_at])).toEqual([
      ['pending', null],
      ['pending', null],
    ]);
  });

  it('a follower the claim filter does not take (its host is full, or the dispatcher is stopping) becomes due now instead', async () => {
    const { t, account } = await messageWithThreeCallbacks();
    const [queued] = claimDueDeliveries(t.deps, { leaseMs: 60_000, limit: 10 });
    const next = finishAndClaimDeliveries(t.deps, [finishedAs(queued!, { kind: 'delivered' }, { statusCode: 200 })], { ...CLAIM, accept: () => 'skip' });
    expect(next).toEqual([]);
    const sent = (await deliveries(t, account)).find((d) => d.payload.status === 'SENT');
    expect(sent).toMatchObject({ state: 'pending', next_attempt_at: new Date(t.clock.now()).toISOString() });

    const [claimed] = claimDueDeliveries(t.deps, { leaseMs: 60_000, limit: 10 });
    expect(claimed && statusOf(claimed)).toBe('SENT');
    finishDeliveries(t.deps, [finishedAs(claimed!, { kind: 'delivered' }, { statusCode: 200 })]);
    const delivered = (await deliveries(t, account)).find((d) => d.payload.status === 'DELIVERED');
    expect(delivered, 'finishing without claiming (shutdown) only makes it due').toMatchObject({
      state: 'pending',
      next_attempt_at: new Date(t.clock.now()).toISOString(),
    });
  });

  it('a replayed earlier callback goes before a later one held behind it, and a callback in flight still holds the next', async () => {
    const { t, account } = appWithAccount();
    const hook = await receiver();
    const handle = await sendWithCallback(t, account, hook.url());
    report(t, handle, 'SENT');
    const dispatcher = dispatcherFor(t);
    expect(await dispatcher.runOnce()).toBe(2);

    const queuedId = hook.received[0]!.headers['webhook-id'];
    const replayed = await t.call('POST', `/accounts/webhooks/deliveries/${queuedId}/replay`, account);
    expect(replayed.status, show(replayed.body)).toBe(200);
    report(t, handle, 'DELIVERED'); // enqueued behind the replayed QUEUED callback: held

    const [again] = claimDueDeliveries(t.deps, { leaseMs: 60_000, limit: 10 });
    expect(again && statusOf(again), 'the held DELIVERED callback is not claimable').toBe('QUEUED');
    const next = finishAndClaimDeliveries(t.deps, [finishedAs(again!, { kind: 'delivered' }, { statusCode: 200 })], CLAIM);
    expect(next.map(statusOf)).toEqual(['DELIVERED']);

    // The whole loop, with a replay while a later callback is in flight: nothing overtakes.
    report(t, handle, 'READ');
    const sentId = hook.received[1]!.headers['webhook-id'];
    finishDeliveries(t.deps, [finishedAs(next[0]!, { kind: 'delivered' }, { statusCode: 200 })]);
    expect((await t.call('POST', `/accounts/webhooks/deliveries/${sentId}/replay`, account)).status).toBe(200);
    const [sentAgain] = claimDueDeliveries(t.deps, { leaseMs: 60_000, limit: 10 });
    expect(sentAgain && statusOf(sentAgain), 'READ was let go when DELIVERED finished; the replayed SENT comes first').toBe('SENT');
    const [read] = claimDueDeliveries(t.deps, { leaseMs: 60_000, limit: 10 });
    expect(read, 'READ waits while the replayed SENT is in flight').toBeUndefined();
    const afterSent = finishAndClaimDeliveries(t.deps, [finishedAs(sentAgain!, { kind: 'delivered' }, { statusCode: 200 })], CLAIM);
    expect(afterSent.map(statusOf)).toEqual(['READ']);
  });

  it('a callback finishing while an earlier one was replayed does not let the next one overtake that replay', async () => {
    const { t, account } = appWithAccount();
    const handle = await sendWithCallback(t, account, 'http://127.0.0.1:9/hook');
    report(t, handle, 'SENT');
    const [queued] = claimDueDeliveries(t.deps, { leaseMs: 60_000, limit: 10 });
    const [sent] = finishAndClaimDeliveries(t.deps, [finishedAs(queued!, { kind: 'delivered' }, { statusCode: 200 })], CLAIM);
    report(t, handle, 'DELIVERED'); // held behind SENT, in flight
    expect((await t.call('POST', `/accounts/webhooks/deliveries/${queued!.webhookId}/replay`, account)).status).toBe(200);

    const afterSent = finishAndClaimDeliveries(t.deps, [finishedAs(sent!, { kind: 'delivered' }, { statusCode: 200 })], CLAIM);
    expect(afterSent.map(statusOf), 'the replayed QUEUED goes; DELIVERED stays held').toEqual(['QUEUED']);
    const afterReplay = finishAndClaimDeliveries(t.deps, [finishedAs(afterSent[0]!, { kind: 'delivered' }, { statusCode: 200 })], CLAIM);
    expect(afterReplay.map(statusOf)).toEqual(['DELIVERED']);
  });

  it('the dispatcher delivers a message’s callbacks in order through hand-overs', async () => {
    const { t, account } = appWithAccount();
    const hook = await receiver();
    const handle = await sendWithCallback(t, account, hook.url());
    for (const status of ['SENT', 'DELIVERED', 'READ'] as const) report(t, handle, status);
    const dispatcher = dispatcherFor(t);
    dispatcher.start();
    await expect.poll(() => hook.received.length).toBe(4);
    expect(hook.received.map((request) => request.json.status)).toEqual(['QUEUED', 'SENT', 'DELIVERED', 'READ']);
    await dispatcher.stop();
    expect((await deliveries(t, account)).map((d) => d.state)).toEqual(['delivered', 'delivered', 'delivered', 'delivered']);
  });
});
