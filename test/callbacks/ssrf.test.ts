import { describe, expect, it } from 'vitest';
import { loadConfig, outboundPolicyOf } from '../../src/config.ts';
import type { OutboundMessage } from '../../src/services/handover.ts';
import { createUpstreamTransport } from '../../src/transports/upstream.ts';
import { expectMessageError, expectRejectedWithoutWrite } from '../helpers/expect.ts';
import { startFakeUpstream } from '../helpers/fake-upstream.ts';
import { ALICE, BOB, show } from '../helpers/fixtures.ts';
import { appWithAccount, dispatcherFor, onCleanup, receiver, sendWithCallback } from './setup.ts';

const UPSTREAM_ENV = {
  TEXTRELAY_TRANSPORT: 'upstream',
  TEXTRELAY_UPSTREAM_URL: 'https://provider.example.com',
  TEXTRELAY_UPSTREAM_KEY_ID: 'key',
  TEXTRELAY_UPSTREAM_SECRET: 'secret',
  TEXTRELAY_PUBLIC_URL: 'https://relay.example.com',
};

/** The policy `serve` applies with this environment. */
function policyFor(env: Record<string, string>) {
  return outboundPolicyOf(loadConfig(env));
}

const SANDBOX_DEFAULT = policyFor({});
const UPSTREAM_DEFAULT = policyFor(UPSTREAM_ENV);
const EVERYTHING_ALLOWED = { allowPrivate: true, allowLinkLocal: true };

/** An internal service on 127.0.0.1 whose answer must never reach a tenant. */
async function internalAdmin() {
  return receiver((_request, _index, response) => {
    response.writeHead(200, { 'content-type': 'text/plain' }).end('admin-token=hunter2');
  });
}

describe('callback URLs refused when they are given', () => {
  it.each([
    'http://127.0.0.1:8080/hook',
    'http://2130706433/hook',
    'http://0x7f.1/hook',
    'http://localhost/hook',
    'http://10.1.2.3/hook',
    'http://172.16.0.1/hook',
    'http://192.168.0.10/hook',
    'http://100.64.1.1/hook',
    'http://0.0.0.0/hook',
    'http://[::1]/hook',
    'http://[::ffff:127.0.0.1]/hook',
    'http://[::127.0.0.1]/hook',
    'http://[::ffff:0:127.0.0.1]/hook',
    'http://[64:ff9b:1::7f00:1]/hook',
    'http://[2002:7f00:1::]/hook',
    'http://192.88.99.1/hook',
    'http://[fd00::5]/hook',
  ])('upstream mode refuses status_callback %s with 400/4000 naming the field, and writes nothing', async (url) => {
    const { t, account } = await appWithAccount({ outboundPolicy: UPSTREAM_DEFAULT });
    const reply = await t.call('POST', '/api/send-message', account, { number: ALICE, content: 'hi', status_callback: url });
    await expectRejectedWithoutWrite(t, account, reply, 4000);
    expect(reply.body.error_message).toMatch(
      /^status_callback is refused: .* private, loopback or reserved address, which the outbound address policy forbids \(TEXTRELAY_ALLOW_PRIVATE_CALLBACKS=true allows it\)$/,
    );
  });

  it('send-group-message and receive webhooks are refused alike, naming their field', async () => {
    const { t, account } = await appWithAccount({ outboundPolicy: UPSTREAM_DEFAULT });
    const group = await t.call('POST', '/api/send-group-message', account, {
      numbers: [ALICE, BOB],
      content: 'hi',
      status_callback: 'http://192.168.0.10/hook',
    });
    await expectRejectedWithoutWrite(t, account, group, 4000);
    expect(group.body.error_message).toMatch(/^status_callback is refused/);

    const refused = await t.call('POST', '/accounts/webhooks', account, {
      webhooks: ['https://hooks.example.com/ok', 'http://127.0.0.1:9/x'],
      type: 'receive',
    });
    expectMessageError(refused, 400, 4000);
    expect(refused.body.error_message).toMatch(/^webhooks\[1\] is refused/);
    expect((await t.call('GET', '/accounts/webhooks', account)).body.webhooks.receive, 'nothing stored').toEqual([]);
  });

  it('sandbox mode refuses metadata and link-local addresses, and accepts loopback', async () => {
    const { t, account } = await appWithAccount({ outboundPolicy: SANDBOX_DEFAULT });
    for (const url of ['http://169.254.169.254/latest/meta-data', 'http://[fe80::1]/x', 'http://[::ffff:a9fe:a9fe]/x']) {
      const reply = await t.call('POST', '/api/send-message', account, { number: ALICE, content: 'hi', status_callback: url });
      await expectRejectedWithoutWrite(t, account, reply, 4000);
      expect(reply.body.error_message, url).toMatch(
        /link-local or cloud-metadata address, which the outbound address policy forbids \(TEXTRELAY_ALLOW_LINK_LOCAL_CALLBACKS=true allows it\)$/,
      );
    }
    const sent = await t.call('POST', '/api/send-message', account, {
      number: ALICE,
      content: 'hi',
      status_callback: 'http://127.0.0.1:9/x',
    });
    expect(sent.status, show(sent.body)).toBe(202);
  });

  it('names are accepted as given: what they resolve to is checked at each connection', async () => {
    const { t, account } = await appWithAccount({ outboundPolicy: UPSTREAM_DEFAULT });
    const sent = await t.call('POST', '/api/send-message', account, {
      number: ALICE,
      content: 'hi',
      status_callback: 'https://hooks.internal.example/x',
    });
    expect(sent.status, show(sent.body)).toBe(202);
  });
});

describe('callbacks refused at connection time, on the address actually connected to', () => {
  // Stored while allowed (as after a configuration change, or a name whose DNS changed since the send).
  async function storedCallbacks(urls: string[]) {
    const { t, account } = await appWithAccount({ outboundPolicy: EVERYTHING_ALLOWED });
    for (const [index, url] of urls.entries()) await sendWithCallback(t, account, url, [ALICE, BOB][index]);
    return { t, account };
  }

  it('upstream mode by default: a receiver on 127.0.0.1 is not posted to, by address or by a name resolving to it, and nothing is read back', async () => {
    const admin = await internalAdmin();
    const { t, account } = await storedCallbacks([
      admin.url('/internal/admin'),
      admin.url('/internal/admin').replace('127.0.0.1', 'localhost'),
    ]);

    expect(await dispatcherFor(t, { outboundPolicy: UPSTREAM_DEFAULT }).runOnce()).toBe(2);
    expect(admin.received, 'nothing reached the internal service').toEqual([]);
    const list = await t.call('GET', '/accounts/webhooks/deliveries', account);
    expect(list.body.deliveries).toHaveLength(2);
    for (const delivery of list.body.deliveries) {
      expect(delivery, show(delivery)).toMatchObject({ state: 'pending', last_status_code: null });
      expect(delivery.attempts[0], show(delivery)).toMatchObject({ status_code: null, response_excerpt: '' });
      expect(delivery.attempts[0].error, show(delivery)).toMatch(
        /^refused by the outbound address policy: .*127\.0\.0\.1.* private, loopback or reserved address$/,
      );
    }
    expect(JSON.stringify(list.body)).not.toContain('hunter2');
  });

  it.each([
    ['sandbox mode by default', SANDBOX_DEFAULT],
    [
      'upstream mode with TEXTRELAY_ALLOW_PRIVATE_CALLBACKS=true',
      policyFor({ ...UPSTREAM_ENV, TEXTRELAY_ALLOW_PRIVATE_CALLBACKS: 'true' }),
    ],
  ])('%s: the receiver on 127.0.0.1 is posted to', async (_mode, policy) => {
    const hook = await internalAdmin();
    const { t, account } = await storedCallbacks([hook.url()]);
    expect(await dispatcherFor(t, { outboundPolicy: policy }).runOnce()).toBe(1);
    expect(hook.received).toHaveLength(1);
    const [delivery] = await (await t.call('GET', '/accounts/webhooks/deliveries', account)).body.deliveries;
    expect(delivery, show(delivery)).toMatchObject({ state: 'delivered', last_status_code: 200 });
  });

  it('sandbox mode refuses the metadata address without trying it; TEXTRELAY_ALLOW_LINK_LOCAL_CALLBACKS=true lets the attempt go out', async () => {
    const { t, account } = await storedCallbacks(['http://169.254.169.254/latest/meta-data/']);
    expect(await dispatcherFor(t, { outboundPolicy: SANDBOX_DEFAULT }).runOnce()).toBe(1);
    const [refused] = await (await t.call('GET', '/accounts/webhooks/deliveries', account)).body.deliveries;
    expect(refused.attempts[0].error, show(refused)).toBe(
      'refused by the outbound address policy: 169.254.169.254 is a link-local or cloud-metadata address',
    );

    t.clock.advance(5_000);
    const allowed = policyFor({ TEXTRELAY_ALLOW_LINK_LOCAL_CALLBACKS: 'true' });
    expect(await dispatcherFor(t, { outboundPolicy: allowed, timeoutMs: 300 }).runOnce()).toBe(1);
    const [tried] = await (await t.call('GET', '/accounts/webhooks/deliveries', account)).body.deliveries;
    expect(tried.attempts, show(tried)).toHaveLength(2);
    expect(tried.attempts[1].error ?? '', show(tried)).not.toMatch(/outbound address policy/);
  });
});

describe("the upstream relay's own requests", () => {
  const message: OutboundMessage = {
    handle: '01a2144c-0000-7000-8000-000000000001',
    accountId: 'acct',
    messageType: 'message',
    lineNumber: '+12065550138',
    recipients: [ALICE],
    content: 'hi',
    mediaUrl: '',
    sendStyle: '',
    groupId: null,
    transportGroupId: null,
    seatId: null,
    replyTo: null,
  };

  it('go through the same policy: a provider on loopback is not reached unless private addresses are allowed', async () => {
    const provider = await startFakeUpstream(() => ({ status: 202, body: { message_handle: 'up-1' } }));
    onCleanup(() => provider.close());
    const { t } = await appWithAccount();
    const options = {
      url: provider.url,
      keyId: 'key',
      secret: 'secret',
      publicUrl: 'https://relay.example.com',
      onWebhookSecret: () => {},
    };

    const guarded = createUpstreamTransport(t.deps, { ...options, outboundPolicy: UPSTREAM_DEFAULT });
    onCleanup(() => guarded.stop());
    await expect(guarded.send(message)).rejects.toThrow(/refused by the outbound address policy: 127\.0\.0\.1/);
    expect(provider.requests).toEqual([]);

    const allowed = createUpstreamTransport(t.deps, { ...options, outboundPolicy: { allowPrivate: true, allowLinkLocal: false } });
    onCleanup(() => allowed.stop());
    expect(await allowed.send(message)).toMatchObject({ transportHandle: 'up-1' });
    expect(provider.requests).toHaveLength(1);
  });
});
