import { afterEach, describe, expect, it } from 'vitest';
import { recordHandover } from '../../src/services/handover.ts';
import { createCourier } from '../../src/transports/courier.ts';
import { createProviderAccounts } from '../../src/transports/provider-api.ts';
import { createUpstreamTransport } from '../../src/transports/upstream.ts';
import { makeTestApp, type TestAccount, type TestApp } from '../helpers/app.ts';
import { send, sendGroup } from '../helpers/delivery.ts';
import { type FakeUpstream, startFakeUpstream, type UpstreamRequest } from '../helpers/fake-upstream.ts';
import { ALICE, BOB, CAROL, LOOPBACK_ALLOWED, show } from '../helpers/fixtures.ts';
import { postIngest, statusCallback } from '../helpers/ingest.ts';

/**
 * Two tenants of one relay, each on a provider account of its own: every call and every message
 * of a tenant reaches the provider with that tenant's credentials, the relay registers at each
 * provider account, and what a provider account reports reaches its own tenant only.
 */

const RELAY = { keyId: 'relay-key', secret: 'relay-secret' };
const A = { keyId: 'key-of-a', secret: 'secret-of-a' };
const B = { keyId: 'key-of-b', secret: 'secret-of-b' };
/** The webhook secret each provider account answers its registration with. */
const webhookSecretOf = (keyId: string) => `whsec_${Buffer.from(`webhook secret of ${keyId}`).toString('base64')}`;

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A provider that accepts everything, answering each send with a handle of its own and a group id per key id. */
async function provider(): Promise<FakeUpstream> {
  const upstream = await startFakeUpstream((request, index) => {
    const keyId = String(request.headers['svc-api-key-id'] ?? request.headers['sb-api-key-id']);
    if (request.path === '/accounts/webhooks') return { status: 200, body: { status: 'OK', secret: webhookSecretOf(keyId) } };
    if (request.path.startsWith('/api/send')) {
      return { status: 202, body: { status: 'QUEUED', message_handle: `up-${index}`, group_id: `up-group-of-${keyId}` } };
    }
    return { status: 200, body: { status: 'OK' } };
  });
  cleanups.push(() => upstream.close());
  return upstream;
}

async function relayWithTwoTenants(options: { providerSecrets?: boolean } = {}) {
  const upstream = await provider();
  const providers = createProviderAccounts({ url: upstream.url, relay: RELAY, outboundPolicy: LOOPBACK_ALLOWED });
  cleanups.push(() => providers.close());
  const t = makeTestApp({
    transportName: 'upstream',
    providers,
    providerSecrets: options.providerSecrets ? [A, B].map(({ keyId }) => ({ keyId, secret: webhookSecretOf(keyId) })) : undefined,
  });
  const a = await t.createAccount({ upstream: A });
  const b = await t.createAccount({ upstream: B });
  return { t, upstream, a, b };
}

/** The transport and a courier that hands every message over at once, as `serve` runs them. */
function handOver(t: TestApp, upstream: FakeUpstream) {
  const learned: [string, string][] = [];
  const transport = createUpstreamTransport(t.deps, {
    url: upstream.url,
    ...RELAY,
    publicUrl: 'https://relay.example.com',
    onWebhookSecret: (secret, keyId) => learned.push([keyId, secret]),
    registrationRetryDelaysMs: [1],
    outboundPolicy: LOOPBACK_ALLOWED,
  });
  const courier = createCourier(t.deps, transport, { retryDelaysMs: [1], concurrency: 4 });
  cleanups.push(async () => {
    await courier.stop();
    await transport.stop();
  });
  return { transport, courier, learned };
}

/** The provider account each request to `path` was made as: the key id and secret headers it carried. */
function callersOf(upstream: FakeUpstream, path: string | RegExp) {
  return upstream.requests
    .filter((request) => (typeof path === 'string' ? request.path === path : path.test(request.path)))
    .map((request: UpstreamRequest) => [
      request.headers['svc-api-key-id'] ?? request.headers['sb-api-key-id'],
      request.headers['svc-api-secret-key'] ?? request.headers['sb-api-secret-key'],
    ]);
}

describe('relay mode: each tenant on its own provider account', () => {
  it('forwards each tenant’s contact create, opt-out and bulk delete with that tenant’s credentials', async () => {
    const { t, upstream, a, b } = await relayWithTwoTenants();
    for (const tenant of [a, b]) {
      const created = await t.call('POST', '/api/v2/contacts', tenant, { number: ALICE, first_name: tenant.email, update_if_exists: true });
      expect(created.status, show(created.body)).toBe(200);
      const optedOut = await t.call('POST', '/api/v2/contacts/opt-out', tenant, { number: BOB, opted_out: true });
      expect(optedOut.status, show(optedOut.body)).toBe(200);
      const deleted = await t.call('DELETE', '/api/v2/contacts', tenant, { contact_ids: [ALICE] });
      expect(deleted.status, show(deleted.body)).toBe(200);
    }

    const asA = [A.keyId, A.secret];
    const asB = [B.keyId, B.secret];
    expect(callersOf(upstream, '/api/v2/contacts'), show(upstream.requests)).toEqual([asA, asA, asB, asB]);
    expect(callersOf(upstream, '/api/v2/contacts/opt-out')).toEqual([asA, asB]);
  });

  it('hands each tenant’s sends and group sends over, and modifies its group, as that tenant’s provider account', async () => {
    const { t, upstream, a, b } = await relayWithTwoTenants();
    const { courier } = handOver(t, upstream);
    const groups: Record<string, string> = {};
    for (const tenant of [a, b]) {
      courier.enqueue((await send(t, tenant, { content: `single from ${tenant.email}` })).message_handle);
      const group = await sendGroup(t, tenant, { numbers: [ALICE, BOB], content: `group from ${tenant.email}` });
      courier.enqueue(group.message_handle);
      groups[tenant.email] = group.group_id!;
    }
    await upstream.received(4);
    await courier.idle();

    const sends = upstream.requests.filter((request) => request.path.startsWith('/api/send'));
    expect(
      sends.map((request) => [request.body.content, request.headers['svc-api-key-id'], request.headers['svc-api-secret-key']]).sort(),
      show(sends),
    ).toEqual([
      [`group from ${a.email}`, A.keyId, A.secret],
      [`group from ${b.email}`, B.keyId, B.secret],
      [`single from ${a.email}`, A.keyId, A.secret],
      [`single from ${b.email}`, B.keyId, B.secret],
    ]);

    for (const tenant of [b, a]) {
      const body = { group_id: groups[tenant.email], modify_type: 'add_recipient', number: CAROL };
      const modified = await t.call('POST', '/api/modify-group', tenant, body);
      expect(modified.status, show(modified.body)).toBe(200);
    }
    const modifications = upstream.requests.filter((request) => request.path === '/api/modify-group');
    expect(modifications.map((request) => [request.body.group_id, request.headers['sb-api-key-id']])).toEqual([
      [`up-group-of-${B.keyId}`, B.keyId],
      [`up-group-of-${A.keyId}`, A.keyId],
    ]);
  });

  it('registers its receive and outbound webhooks at the relay’s and at each tenant’s provider account', async () => {
    const { t, upstream } = await relayWithTwoTenants();
    const { transport, learned } = handOver(t, upstream);
    transport.start();
    await upstream.received(9);

    for (const credentials of [RELAY, A, B]) {
      const asIt = (request: UpstreamRequest) => request.headers['svc-api-key-id'] === credentials.keyId;
      const registrations = upstream.requests.filter(asIt).map((request) => [request.path, request.body.type, request.body.webhooks]);
      expect(registrations.sort(), credentials.keyId).toEqual([
        ['/accounts/webhooks', 'receive', ['https://relay.example.com/webhooks/receive']],
        ['/api/account/webhooks', 'outbound', ['https://relay.example.com/webhooks/status']],
        ['/api/account/webhooks', 'receive', ['https://relay.example.com/webhooks/receive']],
      ]);
      expect(upstream.requests.filter(asIt).every((request) => request.headers['svc-api-secret-key'] === credentials.secret)).toBe(true);
    }
    await expect.poll(() => learned.length).toBe(3);
    expect(learned.sort()).toEqual([A, B, RELAY].map(({ keyId }) => [keyId, webhookSecretOf(keyId)]).sort());
  });
});

describe('relay mode: /webhooks/* per provider account', () => {
  async function receiveAs(t: TestApp, keyId: string, to: TestAccount, content: string) {
    const body = { message_handle: `up-in-${content}`, number: ALICE, from_number: ALICE, to_number: to.numbers[0], content };
    return postIngest(t, '/webhooks/receive', body, { 'svc-signing-secret': webhookSecretOf(keyId) });
  }

  async function contentsOf(t: TestApp, tenant: TestAccount): Promise<string[]> {
    const listed = await t.call('GET', '/accounts/messages', tenant);
    return (listed.body.messages as any[]).filter((message) => !message.is_outbound).map((message) => message.content);
  }

  it('brings a provider account’s inbound message to its own tenant’s line, and keeps one to another tenant’s line as unrouted', async () => {
    const { t, a, b } = await relayWithTwoTenants({ providerSecrets: true });

    const own = await receiveAs(t, B.keyId, b, 'signed by B’s provider account');
    expect(own.status, show(own.body)).toBe(200);
    const forged = await receiveAs(t, A.keyId, b, 'signed by A’s provider account');
    expect(forged.status, show(forged.body)).toBe(202);

    expect(await contentsOf(t, b)).toEqual(['signed by B’s provider account']);
    expect(await contentsOf(t, a)).toEqual([]);
    const stranger = await postIngest(t, '/webhooks/receive', {}, { 'svc-signing-secret': webhookSecretOf('nobody') });
    expect(stranger.status).toBe(401);
  });

  it('applies a status only when the provider account that carries the message reports it', async () => {
    const { t, b } = await relayWithTwoTenants({ providerSecrets: true });
    const sent = await send(t, b);
    await recordHandover(t.deps, sent.message_handle, { transportHandle: 'up-handle-of-b' });
    const statusOf = async () => (await t.call('GET', `/api/status?handle=${sent.message_handle}`, b)).body.status;

    const forged = await postIngest(t, '/webhooks/status', statusCallback('up-handle-of-b', 'ERROR'), {
      'svc-signing-secret': webhookSecretOf(A.keyId),
    });
    expect(forged.status, show(forged.body)).toBe(202);
    expect(await statusOf()).toBe('QUEUED');

    const own = await postIngest(t, '/webhooks/status', statusCallback('up-handle-of-b', 'DELIVERED'), {
      'svc-signing-secret': webhookSecretOf(B.keyId),
    });
    expect(own.status, show(own.body)).toBe(200);
    expect(await statusOf()).toBe('DELIVERED');
  });
});
