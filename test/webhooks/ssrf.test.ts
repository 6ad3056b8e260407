import { describe, expect, it } from 'vitest';
import { expectMessageError, expectRejectedWithoutWrite } from '../helpers/expect.ts';
import { ALICE, BOB, show } from '../helpers/fixtures.ts';
import { appWithAccount, dispatcherFor, receiver, sendWithCallback } from './setup.ts';

/** A DNS stand-in: names map to the addresses given, anything else to a public address. */
function dns(names: Record<string, string[]>) {
  return async (hostname: string) => names[hostname] ?? ['93.184.216.34'];
}

describe('SSRF guard with private callbacks refused', () => {
  it.each([
    'http://127.0.0.1:8080/hook',
    'http://localhost/hook',
    'http://169.254.169.254/latest/meta-data',
    'http://10.1.2.3/hook',
    'http://100.64.1.1/hook',
    'http://[::1]/hook',
    'http://[::ffff:127.0.0.1]/hook',
    'http://[fd00::5]/hook',
    'http://internal.example/hook',
  ])('send-message refuses status_callback %s with 400/4000 and writes nothing', async (url) => {
    const { t, account } = appWithAccount({
      refusePrivateCallbacks: { resolve: dns({ localhost: ['127.0.0.1'], 'internal.example': ['93.184.216.34', '10.0.0.7'] }) },
    });
    const reply = await t.call('POST', '/api/send-message', account, { number: ALICE, content: 'hi', status_callback: url });
    await expectRejectedWithoutWrite(t, account, reply, 4000);
    expect(reply.body.error_message).toMatch(/status_callback is refused/);
  });

  it('send-group-message refuses a private status_callback too', async () => {
    const { t, account } = appWithAccount({ refusePrivateCallbacks: { resolve: dns({}) } });
    const reply = await t.call('POST', '/api/send-group-message', account, {
      numbers: [ALICE, BOB],
      content: 'hi',
      status_callback: 'http://192.168.0.10/hook',
    });
    await expectRejectedWithoutWrite(t, account, reply, 4000);
  });

  it('a public callback is accepted, and a private receive webhook is refused', async () => {
    const { t, account } = appWithAccount({ refusePrivateCallbacks: { resolve: dns({}) } });
    const sent = await t.call('POST', '/api/send-message', account, { number: ALICE, content: 'hi', status_callback: 'https://hooks.example.com/x' });
    expect(sent.status, show(sent.body)).toBe(202);
    const refused = await t.call('POST', '/accounts/webhooks', account, { webhooks: ['http://127.0.0.1:9/x'], type: 'receive' });
    expectMessageError(refused, 400, 4000);
    expect((await t.call('GET', '/accounts/webhooks', account)).body.webhooks.receive).toEqual([]);
  });

  it('private callbacks are accepted when allowed (the default)', async () => {
    const { t, account } = appWithAccount();
    const sent = await t.call('POST', '/api/send-message', account, { number: ALICE, content: 'hi', status_callback: 'http://127.0.0.1:9/x' });
    expect(sent.status, show(sent.body)).toBe(202);
  });

  it('refuses again at delivery time: a literal private address, or a name that resolves to one', async () => {
    const hook = await receiver();
    // Stored while private callbacks were allowed; the dispatcher runs with them refused (as after a
    // configuration change, or a name whose DNS changed since the send).
    const { t, account } = appWithAccount();
    await sendWithCallback(t, account, hook.url().replace('127.0.0.1', 'localhost'), ALICE);
    await sendWithCallback(t, account, hook.url(), BOB);

    expect(await dispatcherFor(t, { allowPrivateCallbacks: false }).runOnce()).toBe(2);
    expect(hook.received, 'nothing reached the private receiver').toEqual([]);
    const list = await t.call('GET', '/accounts/webhooks/deliveries', account);
    for (const delivery of list.body.deliveries) {
      expect(delivery.state, show(delivery)).toBe('pending');
      expect(delivery.attempts[0].error, show(delivery)).toMatch(/private address/);
    }
  });
});
