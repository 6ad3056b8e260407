import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import type { TestAccount, TestApp } from '../helpers/app.ts';
import { ALICE, show } from '../helpers/fixtures.ts';
import type { Received, Receiver } from './receiver.ts';
import { appWithAccount, dispatcherFor, receiver, report, sendWithCallback } from './setup.ts';

async function addWebhooks(t: TestApp, account: TestAccount, body: Record<string, unknown>): Promise<void> {
  const reply = await t.call('POST', '/api/account/webhooks', account, body);
  expect(reply.status, show(reply.body)).toBe(200);
}

async function send(t: TestApp, account: TestAccount): Promise<string> {
  const reply = await t.call('POST', '/api/send-message', account, { number: ALICE, content: 'hello' });
  expect(reply.status, show(reply.body)).toBe(202);
  return reply.body.message_handle;
}

/** Runs the dispatcher until nothing is due, stepping the clock past each retry pause. */
async function deliverAll(t: TestApp): Promise<void> {
  const dispatcher = dispatcherFor(t);
  for (let round = 0; round < 20; round += 1) {
    await dispatcher.runOnce();
    t.clock.advance(5_000);
  }
}

function statuses(hook: Receiver): string[] {
  return hook.received.map((request) => request.json.status);
}

function verify(secret: string, request: Received): unknown {
  const verifier = secret.startsWith('whsec_') ? new Webhook(secret) : new Webhook(secret, { format: 'raw' });
  return verifier.verify(request.body, request.headers as Record<string, string>);
}

describe('outbound webhooks: every status change of every outbound message', () => {
  it('POSTs QUEUED, SENT and DELIVERED in order, retrying a failed one before the next goes', async () => {
    const { t, account } = await appWithAccount();
    const hook = await receiver((_request, index, response) => {
      response.writeHead(index === 0 || index === 2 ? 500 : 200).end();
    });
    await addWebhooks(t, account, { webhooks: [hook.url()], type: 'outbound' });
    const handle = await send(t, account);
    await report(t, handle, 'SENT');
    await report(t, handle, 'DELIVERED');

    await deliverAll(t);

    expect(statuses(hook)).toEqual(['QUEUED', 'QUEUED', 'SENT', 'SENT', 'DELIVERED']);
    expect(hook.received.every((request) => request.json.message_handle === handle)).toBe(true);
    const ids = hook.received.map((request) => request.headers['webhook-id']);
    expect(ids[0], 'a retry keeps its webhook-id').toBe(ids[1]);
    expect(new Set(ids).size).toBe(3);
    const deliveries = (await t.call('GET', '/accounts/webhooks/deliveries', account)).body.deliveries;
    expect(deliveries.map((d: any) => [d.event_type, d.state])).toEqual([
      ['message.outbound', 'delivered'],
      ['message.outbound', 'delivered'],
      ['message.outbound', 'delivered'],
    ]);
  });

  it('goes beside the status_callback, with the same payload, and without one too', async () => {
    const { t, account } = await appWithAccount();
    const outbound = await receiver();
    const callback = await receiver();
    await addWebhooks(t, account, { webhooks: [outbound.url('/outbound')], type: 'outbound' });
    const withCallback = await sendWithCallback(t, account, callback.url('/status'));
    const without = await send(t, account);

    await deliverAll(t);

    expect(callback.received.map((r) => r.json.message_handle)).toEqual([withCallback]);
    expect(outbound.received.map((r) => r.json.message_handle).sort()).toEqual([withCallback, without].sort());
    const twin = outbound.received.find((r) => r.json.message_handle === withCallback);
    expect(twin?.body).toBe(callback.received[0]?.body);
  });

  it('is not sent to receive or other lists', async () => {
    const { t, account } = await appWithAccount();
    const hook = await receiver();
    await addWebhooks(t, account, { webhooks: [hook.url()], type: 'receive' });
    await addWebhooks(t, account, { webhooks: [hook.url('/typing')], type: 'typing_indicator' });
    await send(t, account);
    await deliverAll(t);
    expect(hook.received).toEqual([]);
  });
});

describe('account webhooks: signed by the entry secret, else globalSecret, else the account secret', () => {
  it('signs each entry with the secret that applies to it', async () => {
    const { t, account } = await appWithAccount();
    t.clock.set(Date.now()); // the verifier checks the timestamp against the real clock
    const hook = await receiver();
    const entrySecret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    await addWebhooks(t, account, {
      type: 'outbound',
      webhooks: [
        { url: hook.url('/own-whsec'), secret: entrySecret },
        { url: hook.url('/own-plain'), secret: 'plain entry secret' },
        hook.url('/global'),
      ],
      globalSecret: 'the global secret',
    });
    const other = await t.createAccount();
    await addWebhooks(t, other, { type: 'outbound', webhooks: [hook.url('/account')] });
    const accountSecret = (await t.call('GET', '/accounts/webhooks', other)).body.secret;

    await send(t, account);
    await send(t, other);
    await deliverAll(t);

    const byPath = new Map(hook.received.map((request) => [request.path, request]));
    const expectedSecrets: [string, string][] = [
      ['/own-whsec', entrySecret],
      ['/own-plain', 'plain entry secret'],
      ['/global', 'the global secret'],
      ['/account', accountSecret],
    ];
    for (const [path, secret] of expectedSecrets) {
      const request = byPath.get(path);
      expect(request, path).toBeDefined();
      expect(verify(secret, request!), path).toMatchObject({ status: 'QUEUED' });
      expect(request!.headers['svc-signing-secret'], path).toBe(secret);
    }
    expect(() => verify(accountSecret, byPath.get('/global')!), 'the account secret does not sign a globalSecret entry').toThrow();
  });
});

describe('message events in the account event log', () => {
  /** The message events only: creating the account and messaging someone also log line and contact events. */
  async function events(t: TestApp, account: TestAccount) {
    return (await t.store.accountEvents.after((await t.store.accounts.findByKeyId(account.api_key_id))!.id, 0, 100))
      .filter((event) => event.type.startsWith('message.'))
      .map((event) => ({ type: event.type, data: JSON.parse(event.data) }));
  }

  it('writes message.created at the send and message.updated at each applied step', async () => {
    const { t, account } = await appWithAccount();
    const handle = await send(t, account);
    await report(t, handle, 'DELIVERED');
    await report(t, handle, 'DELIVERED'); // a duplicate applies nothing, so logs nothing
    const line = (await t.call('GET', `/api/status?handle=${handle}`, account)).body.from_number;
    expect(await events(t, account)).toEqual([
      {
        type: 'message.created',
        data: { message_handle: handle, number: ALICE, from_number: line, is_outbound: true, status: 'QUEUED', group_id: null },
      },
      { type: 'message.updated', data: { message_handle: handle, status: 'SENT', previous_status: 'QUEUED', error_code: null } },
      { type: 'message.updated', data: { message_handle: handle, status: 'DELIVERED', previous_status: 'SENT', error_code: null } },
    ]);
  });

  it('writes message.received for an inbound message', async () => {
    const { t, account } = await appWithAccount();
    const reply = await t.call('POST', '/sandbox/inbound', account, { number: ALICE, content: 'hi there' });
    expect(reply.status, show(reply.body)).toBeLessThan(300);
    const [event] = await events(t, account);
    expect(event).toEqual({
      type: 'message.received',
      data: {
        message_handle: expect.any(String),
        number: ALICE,
        to_number: expect.stringMatching(/^\+\d+$/),
        group_id: null,
        content: 'hi there',
      },
    });
  });
});
