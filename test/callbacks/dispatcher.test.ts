import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { VERSION } from '../../src/version.ts';
import type { TestAccount, TestApp } from '../helpers/app.ts';
import { ALICE, BOB, show } from '../helpers/fixtures.ts';
import { claimDue } from '../helpers/outbox.ts';
import { answerOk } from './receiver.ts';
import { appWithAccount, dispatcherFor, receiver, report, sendWithCallback } from './setup.ts';

async function deliveries(t: TestApp, account: TestAccount, query = ''): Promise<any[]> {
  const reply = await t.call('GET', `/accounts/webhooks/deliveries${query}`, account);
  expect(reply.status, show(reply.body)).toBe(200);
  return reply.body.deliveries;
}

async function secretOf(t: TestApp, account: TestAccount): Promise<string> {
  const reply = await t.call('GET', '/accounts/webhooks', account);
  expect(reply.status, show(reply.body)).toBe(200);
  return reply.body.secret;
}

function answerWith(status: number, headers: Record<string, string> = {}, body = '') {
  return (_request: unknown, _index: number, response: import('node:http').ServerResponse) => {
    response.writeHead(status, headers).end(body);
  };
}

/** A receiver that answers nothing until told: `answerHeld()` answers 200 to every request held so far. */
async function holdingReceiver() {
  const held: (() => void)[] = [];
  const hook = await receiver((_request, _index, response) => {
    held.push(() => response.writeHead(200).end());
  });
  return Object.assign(hook, {
    answerHeld(): void {
      for (const answer of held.splice(0)) answer();
    },
  });
}

describe('webhook dispatcher: one delivery', () => {
  it('POSTs the status callback with every header, signed so the standardwebhooks verifier accepts it', async () => {
    const { t, account } = await appWithAccount();
    t.clock.set(Date.now()); // the verifier checks the timestamp against the real clock
    const hook = await receiver();
    const handle = await sendWithCallback(t, account, hook.url());

    expect(await dispatcherFor(t).runOnce()).toBe(1);

    expect(hook.received).toHaveLength(1);
    const [request] = hook.received;
    const secret = await secretOf(t, account);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(request!.headers['content-type']).toBe('application/json');
    expect(request!.headers['user-agent']).toBe(`textrelay/${VERSION}`);
    expect(request!.headers['webhook-id']).toMatch(/^msg_[0-9a-f]{32}$/);
    expect(request!.headers['webhook-timestamp']).toBe(String(Math.floor(t.clock.now() / 1000)));
    expect(request!.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/=]+$/);
    expect(request!.headers['svc-signing-secret']).toBe(secret);
    const verified = new Webhook(secret).verify(request!.body, request!.headers as Record<string, string>);
    expect(verified).toMatchObject({ message_handle: handle, status: 'QUEUED', is_outbound: true, accountEmail: account.email });

    const [delivery] = await deliveries(t, account);
    expect(delivery, show(delivery)).toMatchObject({
      id: request!.headers['webhook-id'],
      event_type: 'message.status',
      state: 'delivered',
      attempt_count: 1,
      last_status_code: 200,
      attempts: [{ status_code: 200, response_excerpt: 'ok', error: null }],
    });
  });

  it('a signature made with another secret does not verify', async () => {
    const { t, account } = await appWithAccount();
    t.clock.set(Date.now());
    const hook = await receiver();
    await sendWithCallback(t, account, hook.url());
    await dispatcherFor(t).runOnce();
    const other = `whsec_${Buffer.alloc(24, 7).toString('base64')}`;
    expect(() => new Webhook(other).verify(hook.received[0]!.body, hook.received[0]!.headers as Record<string, string>)).toThrow();
  });

  it('fails twice then succeeds: same webhook-id each time, three attempts recorded', async () => {
    const { t, account } = await appWithAccount();
    const hook = await receiver((_request, index, response) => {
      response.writeHead(index < 2 ? 500 : 200).end(index < 2 ? 'not yet' : 'ok');
    });
    await sendWithCallback(t, account, hook.url());
    const dispatcher = dispatcherFor(t);

    expect(await dispatcher.runOnce()).toBe(1);
    expect(await dispatcher.runOnce(), 'nothing is due before the first pause').toBe(0);
    t.clock.advance(4_999);
    expect(await dispatcher.runOnce()).toBe(0);
    t.clock.advance(1);
    expect(await dispatcher.runOnce()).toBe(1);
    t.clock.advance(30_000);
    expect(await dispatcher.runOnce()).toBe(1);
    t.clock.advance(10 * 60_000);
    expect(await dispatcher.runOnce(), 'a delivered callback is not sent again').toBe(0);

    const ids = new Set(hook.received.map((request) => request.headers['webhook-id']));
    expect(hook.received).toHaveLength(3);
    expect(ids.size).toBe(1);
    const [delivery] = await deliveries(t, account);
    expect(delivery.state).toBe('delivered');
    expect(delivery.attempts.map((a: any) => [a.status_code, a.response_excerpt])).toEqual([
      [500, 'not yet'],
      [500, 'not yet'],
      [200, 'ok'],
    ]);
  });

  it('410 gives up at once', async () => {
    const { t, account } = await appWithAccount();
    const hook = await receiver(answerWith(410));
    await sendWithCallback(t, account, hook.url());
    const dispatcher = dispatcherFor(t);
    await dispatcher.runOnce();
    t.clock.advance(24 * 3600_000);
    expect(await dispatcher.runOnce()).toBe(0);
    expect(hook.received).toHaveLength(1);
    const [delivery] = await deliveries(t, account, '?state=failed');
    expect(delivery).toMatchObject({ state: 'failed', attempt_count: 1, last_status_code: 410 });
  });

  it('after the schedule is spent the delivery fails', async () => {
    const { t, account } = await appWithAccount();
    const hook = await receiver(answerWith(500));
    await sendWithCallback(t, account, hook.url());
    const dispatcher = dispatcherFor(t);
    for (let i = 0; i < 6; i++) {
      await dispatcher.runOnce();
      t.clock.advance(3600_000);
    }
    expect(hook.received, 'one attempt plus one per pause of the three-step schedule').toHaveLength(4);
    const [delivery] = await deliveries(t, account);
    expect(delivery).toMatchObject({ state: 'failed', attempt_count: 4, next_attempt_at: null });
  });

  it('a receiver that does not answer in time is a failed attempt, retried later', async () => {
    const { t, account } = await appWithAccount();
    const hook = await receiver(() => new Promise(() => {})); // never answers
    await sendWithCallback(t, account, hook.url());
    expect(await dispatcherFor(t, { timeoutMs: 200 }).runOnce()).toBe(1);
    const [delivery] = await deliveries(t, account);
    expect(delivery.state).toBe('pending');
    expect(delivery.attempts).toHaveLength(1);
    expect(delivery.attempts[0]).toMatchObject({ status_code: null, error: 'timed out after 200 ms' });
    expect(delivery.next_attempt_at).toBe(new Date(t.clock.now() + 5_000).toISOString());
  });

  it('a refused connection is a failed attempt, retried later', async () => {
    const { t, account } = await appWithAccount();
    const hook = await receiver();
    const url = hook.url();
    await hook.close();
    await sendWithCallback(t, account, url);
    await dispatcherFor(t).runOnce();
    const [delivery] = await deliveries(t, account);
    expect(delivery.state).toBe('pending');
    expect(delivery.attempts[0].error).toMatch(/ECONNREFUSED/);
  });

  it('honours Retry-After, capped at the longest pause of the schedule', async () => {
    const { t, account } = await appWithAccount();
    const hook = await receiver((_request, index, response) => {
      if (index === 0) response.writeHead(503, { 'retry-after': '60' }).end();
      else if (index === 1) response.writeHead(429, { 'retry-after': '999999' }).end();
      else response.writeHead(204).end();
    });
    await sendWithCallback(t, account, hook.url());
    const dispatcher = dispatcherFor(t);
    await dispatcher.runOnce();
    t.clock.advance(59_999);
    expect(await dispatcher.runOnce(), 'Retry-After: 60 holds it for 60 s, not the 5 s of the schedule').toBe(0);
    t.clock.advance(1);
    expect(await dispatcher.runOnce()).toBe(1);
    t.clock.advance(119_999);
    expect(await dispatcher.runOnce(), 'capped at 120 s, the schedule maximum').toBe(0);
    t.clock.advance(1);
    expect(await dispatcher.runOnce()).toBe(1);
    expect((await deliveries(t, account))[0].state).toBe('delivered');
  });

  it('does not follow redirects: a 3xx is a failed attempt', async () => {
    const { t, account } = await appWithAccount();
    const hook = await receiver((request, _index, response) => {
      if (request.path === '/hook') response.writeHead(302, { location: '/elsewhere' }).end();
      else answerOk(request, 0, response);
    });
    await sendWithCallback(t, account, hook.url());
    await dispatcherFor(t).runOnce();
    expect(hook.received.map((request) => request.path)).toEqual(['/hook']);
    const [delivery] = await deliveries(t, account);
    expect(delivery).toMatchObject({ state: 'pending', last_status_code: 302 });
  });

  it('keeps only the first 2 KiB of a long answer', async () => {
    const { t, account } = await appWithAccount();
    const hook = await receiver(answerWith(500, {}, 'x'.repeat(10_000)));
    await sendWithCallback(t, account, hook.url());
    await dispatcherFor(t).runOnce();
    const [delivery] = await deliveries(t, account);
    expect(delivery.attempts[0].response_excerpt).toBe('x'.repeat(2048));
  });
});

describe('webhook dispatcher: ordering, leases, shutdown', () => {
  it("delivers each message's callbacks in status order, many messages at once, receiver slow and flaky", async () => {
    const { t, account } = await appWithAccount();
    let seed = 42;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const hook = await receiver(async (_request, _index, response) => {
      await new Promise((resolve) => setTimeout(resolve, Math.floor(random() * 15)));
      if (random() < 0.25) response.writeHead(503).end();
      else response.writeHead(200).end();
    });
    const handles: string[] = [];
    for (let i = 0; i < 40; i++) {
      const number = `+1212456${String(7000 + i)}`;
      const handle = await sendWithCallback(t, account, hook.url(`/m${i % 3}`), number);
      handles.push(handle);
      await report(t, handle, 'SENT');
      await report(t, handle, 'DELIVERED');
    }
    // READ arrives while earlier callbacks are still unsent.
    for (const handle of handles) await report(t, handle, 'READ');

    // Ten pauses: a flaky receiver must not make a delivery give up (that would let the next one go).
    const dispatcher = dispatcherFor(t, { concurrency: 16, perHostConcurrency: 8, retryScheduleMs: Array(10).fill(5_000) });
    for (let round = 0; round < 30; round++) {
      await dispatcher.runOnce();
      t.clock.advance(150_000);
    }

    const rows = await deliveries(t, account, '?limit=200');
    expect(rows).toHaveLength(160);
    expect(
      rows.filter((row) => row.state !== 'delivered'),
      'every callback got through',
    ).toEqual([]);
    const order = ['QUEUED', 'SENT', 'DELIVERED', 'READ'];
    for (const handle of handles) {
      // Retries repeat a status, but a status is never sent before the previous one succeeded.
      const statuses = hook.received.filter((request) => request.json.message_handle === handle).map((request) => request.json.status);
      const positions = statuses.map((status) => order.indexOf(status));
      expect(positions, `${handle}: ${statuses.join(',')}`).toEqual([...positions].sort((a, b) => a - b));
      expect(new Set(statuses).size, `${handle}: ${statuses.join(',')}`).toBe(4);
    }
  });

  it('a later callback waits, with no due time, until the one before it is delivered or given up', async () => {
    const { t, account } = await appWithAccount();
    // The QUEUED callback is refused (410, given up at once); SENT then waits behind nothing.
    const hook = await receiver((_request, index, response) => {
      response.writeHead(index === 0 ? 410 : 200).end();
    });
    const handle = await sendWithCallback(t, account, hook.url());
    await report(t, handle, 'SENT');
    await report(t, handle, 'DELIVERED');
    const waiting = await deliveries(t, account, '?state=pending');
    expect(
      waiting.map((d) => [d.payload.status, d.next_attempt_at]),
      'held rows show no next attempt',
    ).toEqual([
      ['DELIVERED', null],
      ['SENT', null],
      ['QUEUED', new Date(t.clock.now()).toISOString()],
    ]);
    const dispatcher = dispatcherFor(t);
    // One runOnce keeps going while finishing rows releases the next: all three without the clock moving.
    expect(await dispatcher.runOnce()).toBe(3);
    expect(hook.received.map((request) => request.json.status)).toEqual(['QUEUED', 'SENT', 'DELIVERED']);
    expect((await deliveries(t, account)).map((d) => d.state)).toEqual(['delivered', 'delivered', 'failed']);
  });

  it('one slow receiver does not hold back the others', async () => {
    const { t, account } = await appWithAccount();
    const slow = await holdingReceiver();
    const fast = await receiver();
    for (let i = 0; i < 6; i++) await sendWithCallback(t, account, slow.url(), `+1212456${String(7100 + i)}`);
    await sendWithCallback(t, account, fast.url(), BOB);
    // Its held posts are not waited for at cleanup: the slow host never answers them.
    // 3 to a host, one kept for newcomers: 2 for this account alone.
    const dispatcher = dispatcherFor(t, { concurrency: 4, perHostConcurrency: 3, shutdownGraceMs: 50 });
    dispatcher.start();
    // One claim starts all three posts; which request reaches its receiver first is up to the sockets and the load.
    await expect
      .poll(() => ({ fast: fast.received.length, slow: slow.received.length }), { timeout: 10_000 })
      .toEqual({ fast: 1, slow: 2 });
    // Later claims (the poll, the fast answer's step) find the slow host still full.
    dispatcher.wake();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(slow.received.length, 'the slow host got only its share of the slots').toBe(2);
  });

  it('after passing over a full host’s backlog it still reaches a callback written later for another host, and the backlog as slots free up', async () => {
    const { t, account } = await appWithAccount();
    const slow = await holdingReceiver();
    const fast = await receiver();
    const backlog = 70; // more rows than one claim passes over before it gives up on finding other hosts
    for (let i = 0; i < backlog; i++) await sendWithCallback(t, account, slow.url(), `+1212457${String(1000 + i)}`);
    // Polling once a minute: only a wake-up or a freed slot can make it look again within the test.
    // 3 to a host, one kept for newcomers: 2 for this account alone.
    const dispatcher = dispatcherFor(t, { concurrency: 32, perHostConcurrency: 3, pollIntervalMs: 60_000 });
    dispatcher.start();
    await expect.poll(() => slow.received.length).toBe(2);

    await sendWithCallback(t, account, fast.url(), BOB);
    dispatcher.wake(); // as the services' notifier does after the commit
    await expect.poll(() => fast.received.length).toBe(1);

    await expect
      .poll(
        () => {
          slow.answerHeld();
          return slow.received.length;
        },
        { timeout: 10_000, interval: 20 },
      )
      .toBe(backlog);
  });

  it('a row claimed by a dispatcher that died goes back to the queue when its lease lapses', async () => {
    const { t, account } = await appWithAccount();
    const hook = await receiver();
    await sendWithCallback(t, account, hook.url());
    const crashed = await claimDue(t.deps, 10);
    expect(crashed).toHaveLength(1);

    const dispatcher = dispatcherFor(t);
    expect(await dispatcher.runOnce(), 'leased to someone else').toBe(0);
    expect((await deliveries(t, account))[0].state).toBe('delivering');
    t.clock.advance(60_000);
    expect(await dispatcher.runOnce()).toBe(1);
    expect(hook.received[0]!.headers['webhook-id']).toBe(crashed[0]!.webhookId);
    expect((await deliveries(t, account))[0].state).toBe('delivered');
  });

  it('stop() waits for posts in flight up to its bound, then gives their rows back', async () => {
    const { t, account } = await appWithAccount();
    const hook = await receiver(() => new Promise(() => {}));
    await sendWithCallback(t, account, hook.url());
    const dispatcher = dispatcherFor(t, { shutdownGraceMs: 100 });
    dispatcher.start();
    await expect.poll(() => hook.received.length).toBe(1);
    await dispatcher.stop();
    const [delivery] = await deliveries(t, account);
    expect(delivery).toMatchObject({ state: 'pending', attempt_count: 0, attempts: [] });

    hook.setAnswer(answerOk);
    expect(await dispatcherFor(t).runOnce(), 'due at once: nothing waits for a lease').toBe(1);
    expect(hook.received[1]!.headers['webhook-id']).toBe(hook.received[0]!.headers['webhook-id']);
  });

  it('start() delivers rows written later when woken, and by polling', async () => {
    const { t, account } = await appWithAccount();
    const hook = await receiver();
    const dispatcher = dispatcherFor(t, { pollIntervalMs: 50 });
    dispatcher.start();
    const handle = await sendWithCallback(t, account, hook.url());
    dispatcher.wake();
    await expect.poll(() => hook.received.length).toBe(1);
    await report(t, handle, 'SENT'); // nobody calls wake(): the poll finds it
    await expect.poll(() => hook.received.map((request) => request.json.status)).toEqual(['QUEUED', 'SENT']);
  });

  it('sends every receive webhook of the account an inbound message', async () => {
    const { t, account } = await appWithAccount();
    const first = await receiver();
    const second = await receiver();
    const added = await t.call('POST', '/accounts/webhooks', account, { webhooks: [first.url(), second.url()], type: 'receive' });
    expect(added.status, show(added.body)).toBe(200);
    const inbound = await t.call('POST', '/sandbox/inbound', account, { number: ALICE, content: 'hi there' });
    expect(inbound.status, show(inbound.body)).toBe(200);

    expect(await dispatcherFor(t).runOnce()).toBe(2);
    for (const hook of [first, second]) {
      expect(hook.received).toHaveLength(1);
      expect(hook.received[0]!.json).toMatchObject({ content: 'hi there', number: ALICE, status: 'RECEIVED', is_outbound: false });
    }
    expect(first.received[0]!.headers['webhook-id']).not.toBe(second.received[0]!.headers['webhook-id']);
  });
});
