import { describe, expect, it } from 'vitest';
import type { Store } from '../../src/db/store.ts';
import { BOB } from '../helpers/fixtures.ts';
import { appWithAccount, dispatcherFor, receiver, sendWithCallback } from './setup.ts';

/** Long enough that only a wake-up, never the poll, can explain a claim within a test. */
const POLL_MS = 600_000;

/** The test app's store, counting the transactions made through it (the dispatcher's claims). */
function countingTransactions(store: Store) {
  let count = 0;
  const transaction: Store['transaction'] = (work) => {
    count += 1;
    return store.transaction(work);
  };
  const counted = new Proxy(store, { get: (target, key) => (key === 'transaction' ? transaction : Reflect.get(target, key)) });
  return { store: counted, count: () => count };
}

/** Lets deferred wake-ups (setImmediate) and the claims they start run. */
async function settle(): Promise<void> {
  for (let i = 0; i < 20; i += 1) await new Promise((resolve) => setTimeout(resolve, 1));
}

describe('the dispatcher wakes only for commits that queued callbacks', () => {
  it('runs no claim after a send that queued no callback, and claims at once after one that did', async () => {
    const { t, account } = await appWithAccount();
    t.clock.set(Date.now());
    const spy = countingTransactions(t.deps.store);
    const dispatcher = dispatcherFor({ ...t, deps: { ...t.deps, store: spy.store } }, { pollIntervalMs: POLL_MS });
    t.notifier.subscribe({ outboxWritten: dispatcher.wake });
    dispatcher.start();
    await settle();
    const atStart = spy.count();
    expect(atStart).toBe(1); // the first look at the outbox, on start

    const plain = await t.call('POST', '/api/send-message', account, { number: BOB, content: 'no callback' });
    expect(plain.status).toBe(202);
    await settle();
    expect(spy.count()).toBe(atStart);

    const hook = await receiver();
    await sendWithCallback(t, account, hook.url());
    const deadline = Date.now() + 5_000;
    while (hook.received.length === 0 && Date.now() < deadline) await settle();
    expect(hook.received.map((request) => request.json.status)).toEqual(['QUEUED']);
    expect(spy.count()).toBeGreaterThan(atStart);
  });
});
