import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type FakeSmsGate,
  SMSGATE_DEVICE_ID,
  SMSGATE_PASSWORD,
  SMSGATE_SIGNING_KEY,
  SMSGATE_USERNAME,
  startFakeSmsGate,
} from '../../helpers/fake-smsgate.ts';

const AUTH = `Basic ${Buffer.from(`${SMSGATE_USERNAME}:${SMSGATE_PASSWORD}`).toString('base64')}`;
const PERSON = '+15551234567';

type Received = { body: string; headers: Record<string, string | string[] | undefined> };

/** A webhook receiver on 127.0.0.1 that answers each POST with the next status of `statuses` (then 204). */
async function startReceiver(statuses: number[] = []) {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ body: Buffer.concat(chunks).toString('utf8'), headers: req.headers });
      res.writeHead(statuses.shift() ?? 204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks/carriers/smsgate/events`;
  const close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return { url, received, close };
}

/** What a receiver must check: hex HMAC-SHA256 of the raw body followed by X-Timestamp. */
function signatureValid({ body, headers }: Received, key = SMSGATE_SIGNING_KEY) {
  const expected = createHmac('sha256', key).update(`${body}${headers['x-timestamp']}`).digest();
  const given = Buffer.from(String(headers['x-signature']), 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function phone(options?: Parameters<typeof startFakeSmsGate>[0]) {
  const gate = await startFakeSmsGate(options);
  cleanups.push(gate.close);
  const call = (method: string, path: string, body?: unknown, auth = AUTH) =>
    fetch(`${gate.url}${path}`, {
      method,
      headers: { authorization: auth, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  return { gate, call };
}

async function receiverFor(gate: FakeSmsGate, call: Awaited<ReturnType<typeof phone>>['call'], events: string[], statuses?: number[]) {
  const receiver = await startReceiver(statuses);
  cleanups.push(receiver.close);
  for (const event of events) {
    const registered = await call('POST', '/webhooks', { id: `textrelay-test-${event.replace(':', '-')}`, url: receiver.url, event });
    expect(registered.status).toBe(201);
  }
  expect(gate.webhooks.size).toBe(events.length);
  return receiver;
}

describe('the fake SMSGate phone (carriers-smsgate.md C.1-C.7)', () => {
  it('asks for Basic auth on every route but /health', async () => {
    const { call } = await phone();
    const refused = await call('GET', '/device', undefined, `Basic ${Buffer.from('sms:wrong').toString('base64')}`);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toBe('Basic realm="Access to SMS Gateway"');
    expect(await refused.text()).toBe('');
    expect((await call('GET', '/health', undefined, '')).status).toBe(200);
    const devices = await (await call('GET', '/device')).json();
    expect(devices).toEqual([expect.objectContaining({ id: SMSGATE_DEVICE_ID, name: 'Google/Pixel' })]);
    expect((await call('GET', '/devices')).status).toBe(404);
  });

  it('accepts a send once, answers 409 to its repeat, and reads its state back', async () => {
    const { gate, call } = await phone();
    const send = {
      id: 'c0ffee00-0000-4000-8000-000000000001',
      deviceId: SMSGATE_DEVICE_ID,
      textMessage: { text: 'hi' },
      phoneNumbers: [PERSON],
    };
    const accepted = await call('POST', '/messages', send);
    expect(accepted.status).toBe(202);
    expect(await accepted.json()).toMatchObject({ id: send.id, state: 'Pending', recipients: [{ phoneNumber: PERSON, state: 'Pending' }] });
    const repeated = await call('POST', '/message', send);
    expect(repeated.status).toBe(409);
    expect(await repeated.json()).toEqual({ message: 'Message with the same ID already exists' });
    expect(gate.messages).toHaveLength(1);
    expect(gate.posts.map((post) => post.status)).toEqual([202, 409]);
    expect(await (await call('GET', `/messages/${send.id}`)).json()).toMatchObject({ state: 'Processed' });
    await gate.advance(send.id, 'failed', { reason: 'Send result: RESULT_ERROR_NO_SERVICE' });
    await gate.advance(send.id, 'delivered');
    const failed = await (await call('GET', `/messages/${send.id}`)).json();
    expect(failed).toMatchObject({ state: 'Failed', recipients: [{ state: 'Failed', error: 'Send result: RESULT_ERROR_NO_SERVICE' }] });
    expect(Object.keys(failed.states)).toEqual(['Pending', 'Processed', 'Failed']);
    const unknown = await call('GET', '/messages/nobody');
    expect([unknown.status, await unknown.text()]).toEqual([404, '']);
  });

  it('refuses invalid sends with 400 and fails or refuses on command without storing', async () => {
    const { gate, call } = await phone();
    const send = { textMessage: { text: 'hi' }, phoneNumbers: [PERSON] };
    const otherDevice = await call('POST', '/messages', { ...send, deviceId: 'another-phone' });
    expect([otherDevice.status, await otherDevice.json()]).toEqual([400, { message: 'Invalid device ID' }]);
    expect((await call('POST', '/messages', { ...send, message: 'twice' })).status).toBe(400);
    expect((await call('POST', '/messages', { ...send, phoneNumbers: [] })).status).toBe(400);
    expect((await call('POST', '/messages', { ...send, id: 'x'.repeat(37) })).status).toBe(400);
    gate.control.failSendsNext = 1;
    gate.control.refuseSendsNext = { status: 429, message: 'Too many requests' };
    expect((await call('POST', '/messages', send)).status).toBe(429);
    expect((await call('POST', '/messages', send)).status).toBe(500);
    expect(gate.messages).toHaveLength(0);
    const generated = await (await call('POST', '/messages', send)).json();
    expect(generated.id).toMatch(/^[\w-]{21}$/);
    expect(gate.posts.map((post) => post.status)).toEqual([400, 400, 400, 400, 429, 500, 202]);
  });

  it('stores a held send at once and answers it only when released', async () => {
    const { gate, call } = await phone();
    const release = gate.control.holdAnswers();
    const answer = call('POST', '/messages', { id: 'held', textMessage: { text: 'hi' }, phoneNumbers: [PERSON] });
    await expect.poll(() => gate.messages.length).toBe(1);
    expect(gate.posts.map((post) => post.status)).toEqual([202]);
    release();
    expect((await answer).status).toBe(202);
  });

  it('destroys every connection while down', async () => {
    const { gate, call } = await phone();
    gate.control.down = true;
    await expect(call('GET', '/health')).rejects.toThrow();
    gate.control.down = false;
    expect((await call('GET', '/health')).status).toBe(200);
  });

  it('registers webhooks by id and refuses a plain-http url that is not the loopback', async () => {
    const { gate, call } = await phone();
    const bad = await call('POST', '/webhooks', { url: 'http://192.168.1.5/hook', event: 'sms:sent' });
    expect([bad.status, await bad.json()]).toEqual([400, { message: 'url must start with https:// or http://127.0.0.1' }]);
    expect((await call('POST', '/webhooks', { url: 'https://a.example/hook', event: 'sms:nope' })).status).toBe(400);
    await call('POST', '/webhooks', { id: 'fixed', url: 'https://a.example/one', event: 'sms:sent' });
    await call('POST', '/webhook', { id: 'fixed', url: 'https://a.example/two', event: 'sms:sent' });
    expect(await (await call('GET', '/webhooks')).json()).toEqual([{ id: 'fixed', url: 'https://a.example/two', event: 'sms:sent' }]);
    expect((await call('DELETE', '/webhooks/fixed')).status).toBe(204);
    expect(gate.webhooks.size).toBe(0);
  });

  it('signs each webhook over the raw body and timestamp, one sms:delivered per part with new envelope ids', async () => {
    const { gate, call } = await phone({ phoneNumber: '+15550000001' });
    const receiver = await receiverFor(gate, call, ['sms:sent', 'sms:delivered']);
    await call('POST', '/messages', { id: 'm1', textMessage: { text: 'hi' }, phoneNumbers: [PERSON] });
    await gate.advance('m1', 'sent', { parts: 2 });
    await gate.advance('m1', 'delivered', { parts: 2 });
    expect(receiver.received).toHaveLength(3);
    for (const request of receiver.received) {
      expect(signatureValid(request)).toBe(true);
      expect(Math.abs(Number(request.headers['x-timestamp']) - Date.now() / 1000)).toBeLessThan(5);
      expect(request.headers['user-agent']).toMatch(/^me\.capcom\.smsgateway\//);
    }
    const envelopes = receiver.received.map((request) => JSON.parse(request.body));
    expect(envelopes[0]).toMatchObject({
      event: 'sms:sent',
      webhookId: 'textrelay-test-sms-sent',
      deviceId: SMSGATE_DEVICE_ID,
      payload: { messageId: 'm1', sender: '+15550000001', recipient: PERSON, phoneNumber: PERSON, simNumber: 1, partsCount: 2 },
    });
    expect(envelopes[0].payload.sentAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[+-]\d\d:\d\d$/);
    expect(envelopes.slice(1).map((envelope) => envelope.event)).toEqual(['sms:delivered', 'sms:delivered']);
    expect(new Set(envelopes.map((envelope) => envelope.id)).size).toBe(3);
    gate.control.signingKey = 'wrong-key';
    await gate.repeat(envelopes[0].id);
    const repeated = receiver.received[3]!;
    expect(signatureValid(repeated)).toBe(false);
    expect(JSON.parse(repeated.body)).toMatchObject({ event: 'sms:sent', payload: envelopes[0].payload });
    expect(JSON.parse(repeated.body).id).not.toBe(envelopes[0].id);
  });

  it('retries a webhook on any non-2xx with the same envelope id, re-signed each time, then gives up', async () => {
    const { gate, call } = await phone({ webhookRetryMs: 10, webhookAttempts: 3 });
    const receiver = await receiverFor(gate, call, ['sms:received'], [500, 401, 204, 400, 400, 400]);
    gate.receive({ from: PERSON, text: 'hello' });
    await gate.settled();
    expect(gate.deliveries.map((delivery) => [delivery.attempt, delivery.status])).toEqual([
      [1, 500],
      [2, 401],
      [3, 204],
    ]);
    expect(new Set(receiver.received.map((request) => JSON.parse(request.body).id)).size).toBe(1);
    expect(receiver.received.every((request) => signatureValid(request))).toBe(true);
    gate.receive({ from: PERSON, text: 'again' });
    await gate.settled();
    expect(gate.deliveries.slice(3).map((delivery) => delivery.status)).toEqual([400, 400, 400]);
  });

  it('sends held webhooks in reverse order', async () => {
    const { gate, call } = await phone();
    const receiver = await receiverFor(gate, call, ['sms:sent', 'sms:delivered']);
    await call('POST', '/messages', { id: 'm2', textMessage: { text: 'hi' }, phoneNumbers: [PERSON] });
    const flush = gate.holdWebhooks();
    await gate.advance('m2', 'sent');
    await gate.advance('m2', 'delivered');
    expect(receiver.received).toHaveLength(0);
    await flush();
    expect(receiver.received.map((request) => JSON.parse(request.body).event)).toEqual(['sms:delivered', 'sms:sent']);
  });

  it('pages /inbox newest first, ids matching the webhook messageId', async () => {
    const { gate, call } = await phone({ phoneNumber: '+15550000001' });
    const receiver = await receiverFor(gate, call, ['sms:received']);
    const times = ['2026-03-01T10:00:00Z', '2026-03-01T11:00:00Z', '2026-03-01T12:00:00Z'];
    const ids = times.map((time, index) => gate.receive({ from: PERSON, text: `text ${index}`, at: new Date(time) }));
    await gate.settled();
    const hash = Number(ids[0]!.inboxId.slice('text:'.length));
    expect(ids[0]!.messageId).toBe((hash >>> 0).toString(16));
    const webhookIds = receiver.received.map((request) => JSON.parse(request.body).payload.messageId);
    expect(webhookIds).toEqual(ids.map((id) => id.messageId));
    const first = await call('GET', '/inbox?type=SMS&limit=2&offset=0');
    expect(first.headers.get('x-total-count')).toBe('3');
    const page = await first.json();
    expect(page.map((entry: any) => entry.id)).toEqual([ids[2]!.inboxId, ids[1]!.inboxId]);
    expect(page[0]).toMatchObject({ type: 'SMS', sender: PERSON, recipient: '+15550000001', simNumber: 1, contentPreview: 'text 2' });
    expect((await (await call('GET', '/inbox?type=SMS&limit=2&offset=2')).json()).map((entry: any) => entry.id)).toEqual([ids[0]!.inboxId]);
    const window = await call('GET', `/inbox?type=SMS&from=${encodeURIComponent('2026-03-01T17:30:00.000+07:00')}&to=2026-03-01T12:00:00Z`);
    expect([window.headers.get('x-total-count'), (await window.json()).length]).toEqual(['2', 2]);
    expect(await (await call('GET', '/inbox?type=TEXT')).json()).toEqual({ message: 'Invalid type' });
    expect((await call('GET', '/inbox?from=2026-03-01')).status).toBe(400);
    expect((await call('GET', '/inbox?limit=501')).status).toBe(400);
  });
});
