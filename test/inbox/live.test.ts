import { afterEach, describe, expect, it } from 'vitest';
import { recordAttempts } from '../../src/services/callback-dispatch.ts';
import { createNotifierHub } from '../../src/services/notifier.ts';
import { recordStatus } from '../../src/services/record-status.ts';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { ALICE } from '../helpers/fixtures.ts';
import { claimDue, finishedAs } from '../helpers/outbox.ts';
import { loggedIn, ORIGIN } from './client.ts';

let t: TestApp;
afterEach(() => {
  t.notifier.endWatchers();
  t.db.$client.close();
});

/** An open /inbox/events stream, read event by event. */
async function openEvents(cookie: string) {
  const response = await t.app.request(`${ORIGIN}/inbox/events`, { headers: { cookie } });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  return {
    /** The next event's name, or 'closed' when the server ended the stream. */
    async next(): Promise<string> {
      for (;;) {
        const end = buffer.indexOf('\n\n');
        if (end >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const name = /^event: (.+)$/m.exec(block)?.[1];
          if (name) return name;
          continue;
        }
        const { done, value } = await reader.read();
        if (done) return 'closed';
        buffer += decoder.decode(value, { stream: true });
      }
    },
  };
}

/** A fresh app with one account logged in to the inbox and its event stream open (past 'ready'). */
async function watchingAccount() {
  t = makeTestApp();
  const account = await t.createAccount();
  const client = await loggedIn(t, account);
  const events = await openEvents(client.cookie);
  expect(await events.next()).toBe('ready');
  return { account, events };
}

describe('live updates over server-sent events', () => {
  it("tells the account's open pages about a send, a status event and an inbound message", async () => {
    const { account, events } = await watchingAccount();

    const sent = await t.call('POST', '/api/send-message', account, { number: ALICE, content: 'hi' });
    expect(await events.next()).toBe('activity');
    await recordStatus(t.deps, { handle: sent.body.message_handle, status: 'SENT', source: 'sandbox' });
    expect(await events.next()).toBe('activity');
    // Not applied, but it joined the history the page shows.
    await recordStatus(t.deps, { handle: sent.body.message_handle, status: 'SENT', source: 'sandbox' });
    expect(await events.next()).toBe('activity');
    await t.call('POST', '/sandbox/inbound', account, { number: ALICE, content: 'hello' });
    expect(await events.next()).toBe('activity');
  });

  it('tells the deliveries page when an attempt to call the account back is recorded', async () => {
    const { account, events } = await watchingAccount();
    await t.call('POST', '/api/send-message', account, {
      number: ALICE,
      content: 'hi',
      status_callback: 'https://hooks.example.com/status',
    });
    expect(await events.next()).toBe('activity');

    const [claimed] = await claimDue(t.deps, 10, { leaseMs: 30_000 });
    const answer = { attemptedAt: t.clock.now(), durationMs: 5, statusCode: 503, excerpt: 'busy' };
    await recordAttempts(t.deps, [finishedAs(claimed!, { kind: 'retry', nextAttemptAt: t.clock.now() + 5_000 }, answer)]);
    expect(await events.next()).toBe('activity');
  });

  it('ends every stream at shutdown', async () => {
    const { events } = await watchingAccount();
    t.notifier.endWatchers();
    expect(await events.next()).toBe('closed');
  });

  it("keeps an account's open streams bounded by ending the oldest", async () => {
    t = makeTestApp();
    const client = await loggedIn(t, await t.createAccount());
    const oldest = await openEvents(client.cookie);
    expect(await oldest.next()).toBe('ready');
    for (let opened = 1; opened < 8; opened++) expect(await (await openEvents(client.cookie)).next()).toBe('ready');
    expect(await (await openEvents(client.cookie)).next()).toBe('ready');
    expect(await oldest.next()).toBe('closed');
  });
});

describe('notifier hub account watchers', () => {
  it("tells a watcher its own account's activity only, until it stops watching", () => {
    const hub = createNotifierHub();
    const seen: string[] = [];
    const stop = hub.watchAccount('acc_a', { activity: () => seen.push('a'), end: () => seen.push('a ended') });
    hub.watchAccount('acc_b', { activity: () => seen.push('b'), end: () => seen.push('b ended') });
    hub.accountActivity('acc_a');
    hub.accountActivity('acc_c');
    stop();
    hub.accountActivity('acc_a');
    hub.endWatchers();
    hub.watchAccount('acc_a', { activity: () => seen.push('late'), end: () => seen.push('late ended') });
    expect(seen).toEqual(['a', 'b ended', 'late ended']);
  });
});
