/**
 * One account's backlog of callbacks does not hold back another's: the dispatcher gives each
 * account at most its share of the posting slots, and reads the due callbacks of others past a
 * full account's backlog. Counted in deliveries, not in time: how many of the flooder's callbacks
 * reach the shared receiver before the victim's one does.
 */
import { describe, expect, it } from 'vitest';
import { BOB } from '../helpers/fixtures.ts';
import { appWithAccount, dispatcherFor, receiver, sendWithCallback } from './setup.ts';

const FLOOD = 2_000;
const PER_ACCOUNT = 4;

describe('fairness between accounts', () => {
  it('a callback of another account goes out after at most a few of a flooding account’s thousands, to the same receiver', async () => {
    const { t, account: flooder } = await appWithAccount();
    const victim = await t.createAccount();
    const hook = await receiver();
    const flooderId = (await t.store.accounts.findByEmail(flooder.email))?.id ?? '';
    // The flood is due first: thousands of callbacks, each of its own message, to one receiver.
    const now = t.clock.now();
    await t.store.transaction(async ({ outbox }) => {
      for (let i = 0; i < FLOOD; i++) {
        await outbox.enqueue(
          {
            webhookId: `msg_flood_${i}`,
            accountId: flooderId,
            messageHandle: `flood-${i}`,
            eventType: 'contact.created',
            url: hook.url(`/flood/${i % 10}`),
            payload: JSON.stringify({ flood: i }),
          },
          now,
        );
      }
    });
    await sendWithCallback(t, victim, hook.url('/victim'), BOB);

    const dispatcher = dispatcherFor(t, { concurrency: 32, perHostConcurrency: 32, perAccountConcurrency: PER_ACCOUNT });
    dispatcher.start();
    await expect.poll(() => hook.received.some((request) => request.path === '/victim'), { timeout: 20_000 }).toBe(true);
    const before = hook.received.findIndex((request) => request.path === '/victim');
    expect(before, 'the flooder’s callbacks that reached the receiver before the victim’s').toBeLessThanOrEqual(2 * PER_ACCOUNT);

    // The flood is not starved either: it goes on, its share of the slots at a time.
    const delivered = hook.received.length;
    await expect.poll(() => hook.received.length, { timeout: 20_000 }).toBeGreaterThan(delivered + 2 * PER_ACCOUNT);
  }, 90_000);
});
