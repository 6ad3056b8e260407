import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { messageAwaitingHandover, type OutboundMessage, recordHandover } from '../../src/services/handover.ts';
import { createCourier } from '../../src/transports/courier.ts';
import { TransportRefusal } from '../../src/transports/transport.ts';
import { createUpstreamTransport, type UpstreamOptions, type UpstreamTransport } from '../../src/transports/upstream.ts';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { accountRow, CALLBACK_URL, send, sendGroup } from '../helpers/delivery.ts';
import { type FakeUpstream, type ScriptedAnswer, startFakeUpstream, type UpstreamRequest } from '../helpers/fake-upstream.ts';
import { ALICE, BOB, LOOPBACK_ALLOWED, show } from '../helpers/fixtures.ts';
import { serveOnLoopback } from '../helpers/listen.ts';
import { callbackStatuses } from '../helpers/outbox.ts';

/** The upstream transport against a provider on loopback: what it sends, and how each kind of answer ends. */

const PUBLIC_URL = 'https://relay.example.com/base/';
const KEY_ID = 'key-id-of-the-relay';
const SECRET = 'secret-of-the-relay';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function upstreamAnswering(answer: (request: UpstreamRequest, index: number) => ScriptedAnswer): Promise<FakeUpstream> {
  const upstream = await startFakeUpstream(answer);
  cleanups.push(() => upstream.close());
  return upstream;
}

function transportTo(t: TestApp, url: string, overrides: Partial<UpstreamOptions> = {}): UpstreamTransport {
  const transport = createUpstreamTransport(t.deps, {
    url,
    keyId: KEY_ID,
    secret: SECRET,
    publicUrl: PUBLIC_URL,
    onWebhookSecret: () => {},
    registrationRetryDelaysMs: [1],
    outboundPolicy: LOOPBACK_ALLOWED,
    ...overrides,
  });
  cleanups.push(() => transport.stop());
  return transport;
}

/** A courier that retries twice, at once: the retry policy is the courier's, tested there; here only its outcome matters. */
function courierFor(t: TestApp, transport: UpstreamTransport) {
  const courier = createCourier(t.deps, transport, { retryDelaysMs: [1, 1], concurrency: 4 });
  cleanups.push(() => courier.stop());
  return courier;
}

const accepted = (handle: string, groupId = ''): ScriptedAnswer => ({
  status: 202,
  body: { status: 'QUEUED', message_handle: handle, group_id: groupId },
});

async function setup() {
  const t = makeTestApp({ transportName: 'upstream' });
  return { t, account: await t.createAccount() };
}

async function outbound(t: TestApp, handle: string): Promise<OutboundMessage> {
  const message = await messageAwaitingHandover(t.deps, handle);
  if (!message) throw new Error(`${handle} is not waiting for a hand-over`);
  return message;
}

describe('upstream transport: what it sends', () => {
  it('posts a single send with the relay’s credentials, our handle as Idempotency-Key and our /webhooks/status as callback', async () => {
    const { t, account } = await setup();
    const upstream = await upstreamAnswering(() => accepted('up-handle-1'));
    const transport = transportTo(t, `${upstream.url}/prefix/`);
    const sent = await send(t, account, { content: 'relay me', mediaUrl: 'https://cdn.example.com/a.png', sendStyle: 'slam' });

    const receipt = await transport.send(await outbound(t, sent.message_handle));

    expect(receipt).toEqual({ transportHandle: 'up-handle-1', transportGroupId: undefined });
    const [request] = upstream.requests;
    expect(request, show(request)).toMatchObject({ method: 'POST', path: '/prefix/api/send-message' });
    expect(request!.headers).toMatchObject({
      'svc-api-key-id': KEY_ID,
      'svc-api-secret-key': SECRET,
      'idempotency-key': sent.message_handle,
      'content-type': 'application/json',
    });
    expect(request!.headers['user-agent']).toMatch(/^textrelay\//);
    // Our client's callback URL stays ours: the upstream calls back the relay, which calls the client.
    // The message's line goes as from_number: the provider sends from the account's own line, and replies come back to it.
    expect(request!.body).toEqual({
      from_number: sent.from_number,
      number: ALICE,
      content: 'relay me',
      media_url: 'https://cdn.example.com/a.png',
      send_style: 'slam',
      status_callback: 'https://relay.example.com/base/webhooks/status',
    });
    expect(JSON.stringify(request!.body)).not.toContain(CALLBACK_URL);
  });

  it('passes seat_id on, and reply_to under the provider’s handle of the message answered', async () => {
    const { t, account } = await setup();
    const upstream = await upstreamAnswering((_request, index) => accepted(`up-handle-${index}`));
    const transport = transportTo(t, upstream.url);
    const first = await send(t, account, { content: 'question' });
    await recordHandover(t.deps, first.message_handle, await transport.send(await outbound(t, first.message_handle)));

    const answer = await send(t, account, {
      content: 'answer',
      seatId: 'seat-7',
      replyTo: { message_handle: first.message_handle, part_index: 1 },
    });
    await transport.send(await outbound(t, answer.message_handle));

    expect(upstream.requests[1]!.body).toMatchObject({ seat_id: 'seat-7', reply_to: { message_handle: 'up-handle-0', part_index: 1 } });
  });

  it('sends a group by numbers until the upstream has named the group, then by its group_id', async () => {
    const { t, account } = await setup();
    const upstream = await upstreamAnswering((_, index) => accepted(`up-g-${index}`, 'up-group-9'));
    const transport = transportTo(t, upstream.url);
    const courier = courierFor(t, transport);

    const first = await sendGroup(t, account, { numbers: [ALICE, BOB], content: 'first' });
    courier.enqueue(first.message_handle);
    await upstream.received(1);
    await courier.idle();
    const second = await sendGroup(t, account, { numbers: [ALICE, BOB], content: 'second' });
    courier.enqueue(second.message_handle);
    await upstream.received(2);
    await courier.idle();

    expect(
      upstream.requests.map((request) => [request.path, request.body.numbers, request.body.group_id]),
      show(upstream.requests),
    ).toEqual([
      ['/api/send-group-message', [ALICE, BOB], undefined],
      ['/api/send-group-message', undefined, 'up-group-9'],
    ]);
    expect((await t.store.messages.findByAnyHandle('up-g-0'))?.handle).toBe(first.message_handle);
    expect((await t.store.groups.findByTransportGroupId((await accountRow(t, account)).id, 'up-group-9'))?.id).toBe(first.group_id);
  });

  it('posts two accounts’ group sends to the same people once each, though the provider answers both with one group id', async () => {
    const { t, account } = await setup();
    const other = await t.createAccount();
    const upstream = await upstreamAnswering((_, index) => accepted(`up-shared-${index}`, 'up-group-shared'));
    const courier = courierFor(t, transportTo(t, upstream.url));

    const first = await sendGroup(t, account, { numbers: [ALICE, BOB], content: 'from the first account' });
    courier.enqueue(first.message_handle);
    await upstream.received(1);
    await courier.idle();
    const second = await sendGroup(t, other, { numbers: [ALICE, BOB], content: 'from the other account' });
    courier.enqueue(second.message_handle);
    await upstream.received(2);
    await courier.idle();
    // Retries (1 ms apart) would have posted again by now.
    await new Promise((resolve) => setTimeout(resolve, 100));
    await courier.idle();

    expect(
      upstream.requests.map((request) => [request.body.content, request.body.from_number]),
      show(upstream.requests),
    ).toEqual([
      ['from the first account', first.from_number],
      ['from the other account', second.from_number],
    ]);
    for (const [sent, owner] of [
      [first, account],
      [second, other],
    ] as const) {
      expect(await t.store.messages.findByAnyHandle(sent.message_handle), show(sent)).toMatchObject({
        status: 'QUEUED',
        handedOverAt: expect.any(Number),
      });
      expect((await t.store.groups.findByTransportGroupId((await accountRow(t, owner)).id, 'up-group-shared'))?.id).toBe(sent.group_id);
    }
  });

  it('hands the same message to a real textrelay twice and it is sent once (Idempotency-Key)', async () => {
    const b = makeTestApp();
    const bAccount = await b.createAccount();
    const server = await serveOnLoopback(b.app.fetch);
    cleanups.push(server.close);
    const t = makeTestApp({ transportName: 'upstream' });
    const account = await t.createAccount({ numbers: bAccount.numbers });
    const transport = transportTo(t, server.url, {
      keyId: bAccount.api_key_id,
      secret: bAccount.api_secret_key,
    });
    const message = await outbound(t, (await send(t, account, { content: 'only once' })).message_handle);

    const first = await transport.send(message);
    const again = await transport.send(message);

    expect(again).toEqual(first);
    const listed = await b.call('GET', '/accounts/messages', bAccount);
    expect(listed.body.messages.map((m: any) => [m.message_handle, m.content, m.callback_url])).toEqual([
      [first.transportHandle, 'only once', 'https://relay.example.com/base/webhooks/status'],
    ]);
  });
});

describe('upstream transport: how answers end', () => {
  it('fails the message with the upstream’s error code and message on a 4xx refusal, without retrying', async () => {
    const { t, account } = await setup();
    const upstream = await upstreamAnswering(() => ({
      status: 400,
      body: {
        status: 'ERROR',
        error_code: 4002,
        error_message: '+1911 is a blacklisted number',
        message: '+1911 is a blacklisted number',
        error_detail: null,
      },
    }));
    const courier = courierFor(t, transportTo(t, upstream.url));
    const handle = (await send(t, account)).message_handle;
    courier.enqueue(handle);
    await upstream.received(1);
    await courier.idle();

    expect(await t.store.messages.findByAnyHandle(handle)).toMatchObject({
      status: 'ERROR',
      errorCode: 4002,
      errorMessage: '+1911 is a blacklisted number',
    });
    expect(await callbackStatuses(t, handle)).toEqual(['QUEUED', 'ERROR']);
    expect(upstream.requests).toHaveLength(1);
  });

  it('fails with 10001 on a 4xx without an error body', async () => {
    const { t, account } = await setup();
    const upstream = await upstreamAnswering(() => ({ status: 422 }));
    const transport = transportTo(t, upstream.url);
    const message = await outbound(t, (await send(t, account)).message_handle);
    const refusal = await transport.send(message).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(TransportRefusal);
    expect(refusal).toMatchObject({ errorCode: 10001, message: expect.stringContaining('422') });
  });

  it.each([500, 503, 408, 409, 425, 429])(
    'retries after %i and hands the message over when the upstream then accepts it',
    async (status) => {
      const { t, account } = await setup();
      const upstream = await upstreamAnswering((_, index) =>
        index === 0 ? { status, body: { status: 'ERROR', error_code: 5000 } } : accepted('up-later'),
      );
      const courier = courierFor(t, transportTo(t, upstream.url));
      const handle = (await send(t, account)).message_handle;
      courier.enqueue(handle);
      await upstream.received(2);
      await courier.idle();

      expect(await t.store.messages.findByAnyHandle(handle)).toMatchObject({ status: 'QUEUED', transportHandle: 'up-later' });
      expect(upstream.requests.map((request) => request.headers['idempotency-key'])).toEqual([handle, handle]);
    },
  );

  it('fails the message with 10001 once every retry met a 5xx', async () => {
    const { t, account } = await setup();
    const upstream = await upstreamAnswering(() => ({ status: 502 }));
    const courier = courierFor(t, transportTo(t, upstream.url));
    const handle = (await send(t, account)).message_handle;
    courier.enqueue(handle);
    await upstream.received(3);
    await courier.idle();

    expect(await t.store.messages.findByAnyHandle(handle)).toMatchObject({ status: 'ERROR', errorCode: 10001, transportHandle: null });
    expect(await callbackStatuses(t, handle)).toEqual(['QUEUED', 'ERROR']);
  });

  it('treats an upstream that never answers as a retryable failure (headers timeout), then recovers', async () => {
    const { t, account } = await setup();
    const upstream = await upstreamAnswering((_, index) => (index === 0 ? 'hang' : accepted('up-after-timeout')));
    const transport = transportTo(t, upstream.url, { timeouts: { headersMs: 50 } });
    const message = await outbound(t, (await send(t, account)).message_handle);

    const failure = await transport.send(message).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Error);
    expect(failure).not.toBeInstanceOf(TransportRefusal);
    expect(await transport.send(message)).toEqual({ transportHandle: 'up-after-timeout', transportGroupId: undefined });
  });

  it('treats a refused connection as retryable, and a 2xx without a message_handle too', async () => {
    const { t, account } = await setup();
    const gone = await startFakeUpstream(() => accepted('never'));
    await gone.close();
    const message = await outbound(t, (await send(t, account)).message_handle);
    const refused = await transportTo(t, gone.url)
      .send(message)
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(Error);
    expect(refused).not.toBeInstanceOf(TransportRefusal);

    const odd = await upstreamAnswering(() => ({ status: 200, body: { status: 'OK' } }));
    const malformed = await transportTo(t, odd.url)
      .send(message)
      .catch((error: unknown) => error);
    expect(malformed).toBeInstanceOf(Error);
    expect(malformed).not.toBeInstanceOf(TransportRefusal);
  });
});

describe('upstream transport: receive webhook registration', () => {
  it('registers our /webhooks/receive at start, retrying a failure, and hands over the secret it gets back', async () => {
    const { t } = await setup();
    let v1Calls = 0;
    const upstream = await upstreamAnswering((request) =>
      request.path === '/accounts/webhooks' && v1Calls++ > 0
        ? { status: 200, body: { status: 'OK', webhooks: { receive: ['x'] }, secret: 'whsec_dXBzdHJlYW0gc2VjcmV0' } }
        : { status: 503 },
    );
    const learned: string[] = [];
    const transport = transportTo(t, upstream.url, { onWebhookSecret: (secret) => learned.push(secret) });

    transport.start();

    expect(await transport.registered()).toBe('whsec_dXBzdHJlYW0gc2VjcmV0');
    expect(learned).toEqual(['whsec_dXBzdHJlYW0gc2VjcmV0']);
    const v1 = upstream.requests.filter((request) => request.path === '/accounts/webhooks');
    expect(v1).toHaveLength(2);
    for (const request of v1) {
      expect(request, show(request)).toMatchObject({
        path: '/accounts/webhooks',
        body: { webhooks: ['https://relay.example.com/base/webhooks/receive'], type: 'receive' },
        headers: { 'svc-api-key-id': KEY_ID, 'svc-api-secret-key': SECRET },
      });
    }
  });
});

describe("upstream transport: the relay in the provider's /api/account/webhooks lists", () => {
  it('adds receive and outbound entries, one call per type, retrying a refusal and logging what the provider said', async () => {
    const { t } = await setup();
    let outboundCalls = 0;
    const upstream = await upstreamAnswering((request) => {
      if (request.path === '/accounts/webhooks')
        return { status: 200, body: { status: 'OK', webhooks: {}, secret: 'whsec_dXBzdHJlYW0gc2VjcmV0' } };
      if ((request.body as any).type === 'outbound' && outboundCalls++ === 0) {
        return { status: 400, body: { status: 'ERROR', error_code: 4000, error_message: 'webhooks[0] is refused' } };
      }
      return { status: 200, body: { status: 'OK', webhooks: {} } };
    });
    const lines: string[] = [];
    const warn = (fields: { url: string; err: Error }, message: string) => lines.push(`${message} ${fields.url} ${fields.err.message}`);
    const transport = createUpstreamTransport(
      { ...t.deps, log: Object.assign(Object.create(t.deps.log), { warn }) },
      {
        url: upstream.url,
        keyId: KEY_ID,
        secret: SECRET,
        publicUrl: PUBLIC_URL,
        onWebhookSecret: () => {},
        registrationRetryDelaysMs: [1],
        outboundPolicy: LOOPBACK_ALLOWED,
      },
    );
    cleanups.push(() => transport.stop());

    transport.start();
    await transport.listsRegistered();

    const lists = upstream.requests.filter((request) => request.path === '/api/account/webhooks');
    expect(lists.map((request) => request.body)).toEqual(
      expect.arrayContaining([
        { webhooks: ['https://relay.example.com/base/webhooks/receive'], type: 'receive' },
        { webhooks: ['https://relay.example.com/base/webhooks/status'], type: 'outbound' },
      ]),
    );
    expect(lists.filter((request) => (request.body as any).type === 'outbound')).toHaveLength(2);
    expect(lines.join('\n')).toMatch(/outbound webhook list entry upstream failed.*webhooks\/status.*400: webhooks\[0\] is refused/s);
  });
});

describe('upstream configuration', () => {
  const complete = {
    TEXTRELAY_TRANSPORT: 'upstream',
    TEXTRELAY_UPSTREAM_URL: 'https://provider.example.com',
    TEXTRELAY_UPSTREAM_KEY_ID: 'k',
    TEXTRELAY_UPSTREAM_SECRET: 's',
    TEXTRELAY_PUBLIC_URL: 'https://relay.example.com',
  };

  it('accepts upstream mode with the URL, both credentials and the public URL', () => {
    expect(loadConfig(complete)).toMatchObject(complete);
  });

  it.each(['TEXTRELAY_UPSTREAM_URL', 'TEXTRELAY_UPSTREAM_KEY_ID', 'TEXTRELAY_UPSTREAM_SECRET', 'TEXTRELAY_PUBLIC_URL'])(
    'refuses upstream mode without %s, naming it',
    (missing) => {
      const load = () => loadConfig({ ...complete, [missing]: '' });
      expect(load).toThrow(ConfigError);
      expect(load).toThrow(`${missing}: is required when TEXTRELAY_TRANSPORT is upstream`);
    },
  );

  it('does not require them in sandbox mode', () => {
    expect(loadConfig({ TEXTRELAY_TRANSPORT: 'sandbox' }).TEXTRELAY_UPSTREAM_URL).toBeUndefined();
  });
});
