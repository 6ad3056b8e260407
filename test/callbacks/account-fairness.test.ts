/**
 * One account's backlog of callbacks does not hold back another's: the dispatcher shares each
 * host's posting slots between the accounts with callbacks to it, keeps a few of them for accounts
 * with none in flight there, and reads the due callbacks of others past a full account's backlog.
 * Counted mostly in deliveries, not in time: how many of the flooders' callbacks reach the shared
 * receiver before the victim's one does; the time bounds are far below the tens of seconds a
 * first-come line takes, and generous for a loaded machine.
 */
import { describe, expect, it } from 'vitest';
import type { TestAccount, TestApp } from '../helpers/app.ts';
import { BOB } from '../helpers/fixtures.ts';
import type { Answer, Receiver } from './receiver.ts';
import { appWithAccount, dispatcherFor, receiver, report, sendWithCallback } from './setup.ts';

const PER_ACCOUNT = 4;

/** Writes `count` callbacks of `accountId`, each of its own message (`webhooks` URLs in turn), due now. */
async function flood(t: TestApp, accountId: string, count: number, url: (i: number) => string): Promise<void> {
  const now = t.clock.now();
  await t.store.transaction(async ({ outbox }) => {
    for (let i = 0; i < count; i++) {
      await outbox.enqueue(
        {
          webhookId: `msg_${accountId}_${i}`,
          accountId,
          messageHandle: `flood-${accountId}-${i}`,
          eventType: 'contact.created',
          url: url(i),
          payload: JSON.stringify({ flood: i }),
        },
        now,
      );
    }
  });
}

async function idOf(t: TestApp, account: TestAccount): Promise<string> {
  return (await t.store.accounts.findByEmail(account.email))?.id ?? '';
}

/** A receiver that answers every request after `ms`, as a slow client service does. */
function answeringAfter(ms: number): Answer {
  return (_request, _index, response) =>
    new Promise<void>((resolve) =>
      setTimeout(() => {
        response.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
        resolve();
      }, ms),
    );
}

const isVictim = (path: string) => path.startsWith('/victim');

/** Waits for the victim's callback, and returns how many others reached the receiver before it and after how many ms. */
async function victimArrival(hook: Receiver, since: number, timeout: number) {
  await expect.poll(() => hook.received.some((request) => isVictim(request.path)), { timeout, interval: 20 }).toBe(true);
  const elapsedMs = Date.now() - since;
  return { ahead: hook.received.findIndex((request) => isVictim(request.path)), elapsedMs };
}

/** The host's slots (64 by default), and a receiver's first wave of them: what may reach it before the victim at most. */
const DEFAULT_HOST_SLOTS = 64;

describe('fairness between accounts', () => {
  it('a callback of another account goes out after at most a few of a flooding account’s thousands, to the same receiver', async () => {
    const { t, account: flooder } = await appWithAccount();
    const victim = await t.createAccount();
    const hook = await receiver();
    // The flood is due first: thousands of callbacks, each of its own message, to one receiver.
    await flood(t, await idOf(t, flooder), 2_000, (i) => hook.url(`/flood/${i % 10}`));
    await sendWithCallback(t, victim, hook.url('/victim'), BOB);

    const dispatcher = dispatcherFor(t, { concurrency: 32, perHostConcurrency: 32, perAccountConcurrency: PER_ACCOUNT });
    dispatcher.start();
    const { ahead } = await victimArrival(hook, Date.now(), 20_000);
    expect(ahead, 'the flooder’s callbacks that reached the receiver before the victim’s').toBeLessThanOrEqual(2 * PER_ACCOUNT);

    // The flood is not starved either: it goes on, its share of the slots at a time.
    const delivered = hook.received.length;
    await expect.poll(() => hook.received.length, { timeout: 20_000 }).toBeGreaterThan(delivered + 2 * PER_ACCOUNT);
  }, 120_000);

  describe('with the default limits', () => {
    it.each([
      ['200 ms', 200, 4_000],
      ['3 s', 3_000, 1_500],
    ])(
      'behind thousands of one account’s callbacks to a receiver answering in %s, another account’s reaches it at once, and the flood goes on',
      async (_name, latencyMs, floodSize) => {
        const { t, account: flooder } = await appWithAccount();
        const victim = await t.createAccount();
        const hook = await receiver(answeringAfter(latencyMs));
        // Each callback of its own URL: the flood cannot be told apart from the victim's by URL, only by host and account.
        await flood(t, await idOf(t, flooder), floodSize, (i) => hook.url(`/flood/${i}`));
        await sendWithCallback(t, victim, hook.url('/victim'), BOB);

        const dispatcher = dispatcherFor(t, { shutdownGraceMs: 50 });
        dispatcher.start();
        const { ahead, elapsedMs } = await victimArrival(hook, Date.now(), 30_000);
        // A first-come line: every earlier callback ahead, tens of seconds.
        expect(ahead, 'the flooder’s callbacks that reached the receiver first: its first wave at most').toBeLessThanOrEqual(
          DEFAULT_HOST_SLOTS,
        );
        expect(elapsedMs, 'ms until the victim’s callback reached the receiver').toBeLessThan(5_000);

        // Work-conserving and not starved: the flood keeps nearly all of the host's slots.
        const delivered = hook.received.length;
        await expect.poll(() => hook.received.length, { timeout: 20_000 }).toBeGreaterThan(delivered + DEFAULT_HOST_SLOTS / 2);
      },
      90_000,
    );

    it('behind two accounts flooding the same receiver, a third account’s callback reaches it at once, and both floods go on', async () => {
      const { t, account: first } = await appWithAccount();
      const second = await t.createAccount();
      const victim = await t.createAccount();
      const hook = await receiver(answeringAfter(200));
      await flood(t, await idOf(t, first), 2_000, (i) => hook.url(`/first/${i}`));
      await flood(t, await idOf(t, second), 2_000, (i) => hook.url(`/second/${i}`));
      await sendWithCallback(t, victim, hook.url('/victim'), BOB);

      const dispatcher = dispatcherFor(t, { shutdownGraceMs: 50 });
      dispatcher.start();
      const { ahead, elapsedMs } = await victimArrival(hook, Date.now(), 30_000);
      expect(ahead, 'the flooders’ callbacks that reached the receiver first').toBeLessThanOrEqual(DEFAULT_HOST_SLOTS);
      expect(elapsedMs).toBeLessThan(5_000);

      // Both go on, sharing the host: the second is not starved behind the first's older backlog.
      const countOf = (prefix: string) => hook.received.filter((request) => request.path.startsWith(prefix)).length;
      const before = { first: countOf('/first/'), second: countOf('/second/') };
      await expect
        .poll(() => Math.min(countOf('/first/') - before.first, countOf('/second/') - before.second), { timeout: 20_000 })
        .toBeGreaterThan(DEFAULT_HOST_SLOTS);
    }, 120_000);

    it('behind another account’s flood of account events (many webhooks × many contacts) to a fast receiver, a message’s callbacks go out in step with it', async () => {
      const { t, account: flooder } = await appWithAccount();
      const victim = await t.createAccount();
      const hook = await receiver();
      const webhooks = 10;
      await flood(t, await idOf(t, flooder), 5_000, (i) => hook.url(`/contacts/${i % webhooks}`));

      const dispatcher = dispatcherFor(t, { shutdownGraceMs: 50 });
      dispatcher.start();
      // The victim sends once the flood is under way, and its message goes on to READ.
      await expect.poll(() => hook.received.length, { timeout: 20_000, interval: 5 }).toBeGreaterThan(200);
      const sentAfter = hook.received.length;
      const sentAt = Date.now();
      const handle = await sendWithCallback(t, victim, hook.url('/victim'), BOB);
      for (const status of ['SENT', 'DELIVERED', 'READ'] as const) await report(t, handle, status);
      dispatcher.wake();

      const isRead = () => hook.received.findIndex((request) => isVictim(request.path) && request.json?.status === 'READ');
      await expect.poll(isRead, { timeout: 30_000, interval: 5 }).toBeGreaterThanOrEqual(0);
      const elapsedMs = Date.now() - sentAt;
      const floodBetween = hook.received.slice(sentAfter, isRead()).filter((request) => !isVictim(request.path)).length;
      // In line, the READ callback would wait behind every one of the 5,000 written before it.
      expect(floodBetween, 'flood callbacks delivered between the victim’s send and its READ callback').toBeLessThan(2_000);
      expect(elapsedMs, 'ms from the victim’s send to its READ callback').toBeLessThan(5_000);
      expect(
        hook.received.filter((request) => isVictim(request.path)).map((request) => request.json.status),
        'its callbacks in order',
      ).toEqual(['QUEUED', 'SENT', 'DELIVERED', 'READ']);
    }, 120_000);
  });
});
