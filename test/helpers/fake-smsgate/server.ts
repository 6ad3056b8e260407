/**
 * An Android phone running SMS Gateway for Android in local server mode (carriers-smsgate.md C.1-C.7)
 * on 127.0.0.1 port 0: its REST API with Basic auth, 409 on a repeated id, /inbox, webhook
 * registration, and a phone the test drives (sends progress, SMS arrive, the server goes down).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createWebhookQueue } from './webhooks.ts';
import {
  deviceTime,
  type FakeSmsGateInboxEntry,
  type FakeSmsGateMessage,
  type FakeSmsGateWebhook,
  INBOX_TYPES,
  incomingIds,
  messageResource,
  messageState,
  nanoid,
  SMSGATE_APP_VERSION,
  SMSGATE_DEVICE_ID,
  SMSGATE_PASSWORD,
  SMSGATE_SIGNING_KEY,
  SMSGATE_USERNAME,
  sendRefusal,
  WEBHOOK_EVENTS,
} from './wire.ts';

export type FakeSmsGateOptions = {
  /** The SIM's own number: payload.sender of outbound events and payload.recipient of sms:received. */
  phoneNumber?: string;
  /** Wait before the first webhook retry, doubling at each one. */
  webhookRetryMs?: number;
  /** Attempts per webhook delivery before the phone gives up. */
  webhookAttempts?: number;
  /** The phone's clock (epoch ms), for X-Timestamp and payload times when a test fakes the app's clock. */
  now?: () => number;
};

/** `yyyy-MM-dd'T'HH:mm:ss[.SSS]XXX`, the only datetime form /inbox accepts. */
const INBOX_DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?(Z|[+-]\d{2}:\d{2})$/;
const EXPECTED_AUTH = `Basic ${Buffer.from(`${SMSGATE_USERNAME}:${SMSGATE_PASSWORD}`).toString('base64')}`;

export async function startFakeSmsGate(options: FakeSmsGateOptions = {}) {
  const now = options.now ?? Date.now;
  const messages: FakeSmsGateMessage[] = [];
  const posts: { body: any; status: number }[] = [];
  const webhooks = new Map<string, FakeSmsGateWebhook>();
  const inbox: FakeSmsGateInboxEntry[] = [];
  /** While set, an accepted send's answer waits for it: the phone took the message, the answer is late. */
  let heldAnswers: Promise<void> | undefined;
  const control = {
    /** The phone's server is unreachable: every request's socket is destroyed (webhooks still go out). */
    down: false,
    failSendsNext: 0,
    refuseSendsNext: undefined as { status: number; message: string } | undefined,
    holdAnswers(): () => void {
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      heldAnswers = held;
      return () => {
        if (heldAnswers === held) heldAnswers = undefined;
        release();
      };
    },
    signingKey: SMSGATE_SIGNING_KEY,
    timestampSkewS: 0,
  };
  const queue = createWebhookQueue({
    webhooks,
    signing: control,
    now,
    retryMs: options.webhookRetryMs ?? 50,
    maxAttempts: options.webhookAttempts ?? 6,
  });

  function send(res: ServerResponse, status: number, body?: unknown, headers: Record<string, string> = {}) {
    if (body === undefined) return void res.writeHead(status, headers).end();
    res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
  }

  function postMessage(raw: string, res: ServerResponse) {
    let body: any = raw;
    /** Records the answer when decided, though a held one goes out later. */
    const answer = (status: number, payload: unknown, held?: Promise<void>) => {
      posts.push({ body, status });
      if (held !== undefined) return void held.then(() => send(res, status, payload));
      send(res, status, payload);
    };
    try {
      body = JSON.parse(raw);
    } catch {
      return answer(400, { message: 'Invalid JSON body' });
    }
    const refusal = control.refuseSendsNext;
    if (refusal) {
      control.refuseSendsNext = undefined;
      return answer(refusal.status, { message: refusal.message });
    }
    if (control.failSendsNext > 0) {
      control.failSendsNext -= 1;
      return answer(500, { message: 'Failed to enqueue message: database is locked' });
    }
    const invalid = sendRefusal(body);
    if (invalid) return answer(400, { message: invalid });
    const phoneNumbers: string[] = body.phoneNumbers;
    // The recipients' primary key is (messageId, phoneNumber), so a number given twice conflicts like a repeated id.
    const repeatedNumber = new Set(phoneNumbers).size !== phoneNumbers.length;
    if (repeatedNumber || messages.some((message) => message.id === body.id))
      return answer(409, { message: 'Message with the same ID already exists' });
    const acceptedAt = deviceTime(now());
    const message: FakeSmsGateMessage = {
      id: body.id ?? nanoid(),
      deviceId: SMSGATE_DEVICE_ID,
      text: body.textMessage?.text ?? body.message ?? '',
      phoneNumbers,
      withDeliveryReport: body.withDeliveryReport ?? true,
      state: 'Pending',
      recipients: phoneNumbers.map((phoneNumber) => ({ phoneNumber, state: 'Pending' })),
      states: { Pending: acceptedAt },
      body,
    };
    messages.push(message);
    const accepted = messageResource(message);
    // The phone hands the message to Android's SmsManager at once.
    for (const recipient of message.recipients) recipient.state = 'Processed';
    message.state = 'Processed';
    message.states.Processed = deviceTime(now());
    answer(202, accepted, heldAnswers);
  }

  function postWebhook(raw: string, res: ServerResponse) {
    let body: any;
    try {
      body = JSON.parse(raw);
    } catch {
      return send(res, 400, { message: 'Invalid JSON body' });
    }
    if (typeof body?.url !== 'string' || !(body.url.startsWith('https://') || body.url.startsWith('http://127.0.0.1')))
      return send(res, 400, { message: 'url must start with https:// or http://127.0.0.1' });
    if (!WEBHOOK_EVENTS.includes(body.event)) return send(res, 400, { message: `Invalid event: ${body.event}` });
    const webhook: FakeSmsGateWebhook = {
      id: typeof body.id === 'string' && body.id !== '' ? body.id : nanoid(),
      url: body.url,
      event: body.event,
    };
    if (typeof body.deviceId === 'string') webhook.deviceId = body.deviceId;
    webhooks.set(webhook.id, webhook);
    send(res, 201, webhook);
  }

  function listInbox(query: URLSearchParams, res: ServerResponse) {
    const type = query.get('type') ?? 'SMS';
    if (!INBOX_TYPES.includes(type)) return send(res, 400, { message: 'Invalid type' });
    const bounds: Record<'from' | 'to', number | undefined> = { from: undefined, to: undefined };
    for (const bound of ['from', 'to'] as const) {
      const value = query.get(bound);
      if (value === null) continue;
      if (!INBOX_DATETIME.test(value) || Number.isNaN(Date.parse(value))) return send(res, 400, { message: `Invalid ${bound} datetime` });
      bounds[bound] = Date.parse(value);
    }
    const limit = Number(query.get('limit') ?? 50);
    if (!Number.isInteger(limit) || limit < 1 || limit > 500) return send(res, 400, { message: 'Invalid limit' });
    const offset = Number(query.get('offset') ?? 0);
    if (!Number.isInteger(offset) || offset < 0) return send(res, 400, { message: 'Invalid offset' });
    const matching = inbox
      .filter((entry) => entry.type === type)
      .filter(
        (entry) => (bounds.from ?? -Infinity) <= Date.parse(entry.createdAt) && Date.parse(entry.createdAt) <= (bounds.to ?? Infinity),
      )
      .sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt));
    send(res, 200, matching.slice(offset, offset + limit), { 'x-total-count': String(matching.length) });
  }

  function route(req: IncomingMessage, raw: string, res: ServerResponse) {
    const url = new URL(req.url ?? '/', 'http://phone');
    const path = url.pathname;
    if (req.method === 'GET' && path === '/health')
      return send(res, 200, { status: 'pass', version: SMSGATE_APP_VERSION, releaseId: 1, checks: {} });
    if (req.headers.authorization !== EXPECTED_AUTH)
      return send(res, 401, undefined, { 'www-authenticate': 'Basic realm="Access to SMS Gateway"' });
    if (req.method === 'POST' && /^\/messages?$/.test(path)) return postMessage(raw, res);
    const messageId = path.match(/^\/messages?\/([^/]+)$/)?.[1];
    if (req.method === 'GET' && messageId !== undefined) {
      const message = messages.find((m) => m.id === decodeURIComponent(messageId));
      return message ? send(res, 200, messageResource(message)) : send(res, 404);
    }
    if (req.method === 'GET' && /^\/webhooks?$/.test(path)) return send(res, 200, [...webhooks.values()]);
    if (req.method === 'POST' && /^\/webhooks?$/.test(path)) return postWebhook(raw, res);
    const webhookId = path.match(/^\/webhooks?\/([^/]+)$/)?.[1];
    if (req.method === 'DELETE' && webhookId !== undefined) return send(res, webhooks.delete(decodeURIComponent(webhookId)) ? 204 : 404);
    if (req.method === 'GET' && path === '/device') return send(res, 200, [device()]);
    if (req.method === 'GET' && path === '/inbox') return listInbox(url.searchParams, res);
    send(res, 404);
  }

  function device() {
    const simCard = {
      slotIndex: 0,
      simNumber: 1,
      carrierName: 'T-Mobile',
      ...(options.phoneNumber ? { phoneNumber: options.phoneNumber } : {}),
    };
    return { id: SMSGATE_DEVICE_ID, name: 'Google/Pixel', simCards: [simCard] };
  }

  const server = createServer((req, res) => {
    if (control.down) return void req.socket.destroy();
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => route(req, Buffer.concat(chunks).toString('utf8'), res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  /** The fields every message event carries (C.4); the deprecated phoneNumber is the recipient for outbound. */
  const outboundFields = (message: FakeSmsGateMessage, phoneNumber: string) => ({
    messageId: message.id,
    ...(options.phoneNumber ? { sender: options.phoneNumber } : {}),
    recipient: phoneNumber,
    phoneNumber,
    simNumber: 1,
  });

  return {
    url,
    messages,
    posts,
    webhooks,
    inbox,
    deliveries: queue.deliveries,
    control,
    /**
     * Android reports on a message: each recipient (or only `recipient`) moves on, Failed staying
     * Failed, and one webhook per recipient goes out, sms:delivered once per part. The webhook is
     * sent even for a Failed message, as the app emits whatever Android broadcasts.
     */
    async advance(
      id: string,
      event: 'sent' | 'delivered' | 'failed',
      advanceOptions: { reason?: string; parts?: number; recipient?: string } = {},
    ): Promise<void> {
      const message = messages.find((m) => m.id === id);
      if (!message) throw new Error(`the phone has no message ${id}`);
      const state = { sent: 'Sent', delivered: 'Delivered', failed: 'Failed' }[event];
      const reason = advanceOptions.reason ?? 'Send result: RESULT_ERROR_GENERIC_FAILURE';
      const parts = advanceOptions.parts ?? 1;
      const at = deviceTime(now());
      const recipients = message.recipients.filter(
        (r) => advanceOptions.recipient === undefined || r.phoneNumber === advanceOptions.recipient,
      );
      for (const recipient of recipients) {
        if (recipient.state === 'Failed') continue;
        recipient.state = state;
        if (event === 'failed') recipient.error = reason;
      }
      // Recipients stay Failed, so a message whose recipients all failed stays Failed too.
      const next = messageState(message.recipients);
      if (next !== message.state) message.states[next] = at;
      message.state = next;
      const emissions = recipients.flatMap((recipient) => {
        const fields = outboundFields(message, recipient.phoneNumber);
        if (event === 'sent') return [queue.emit('sms:sent', { ...fields, partsCount: parts, sentAt: at })];
        if (event === 'failed') return [queue.emit('sms:failed', { ...fields, reason, failedAt: at })];
        return Array.from({ length: parts }, () => queue.emit('sms:delivered', { ...fields, deliveredAt: at }));
      });
      await Promise.all(emissions);
    },
    /** An SMS reaches the phone: it lands in the inbox and an sms:received webhook goes out. */
    receive(input: { from: string; text: string; at?: Date }): { messageId: string; inboxId: string } {
      const at = input.at ?? new Date(now());
      const ids = incomingIds(input.from, at, input.text);
      inbox.push({
        id: ids.inboxId,
        type: 'SMS',
        sender: input.from,
        recipient: options.phoneNumber ?? null,
        simNumber: 1,
        contentPreview: input.text,
        createdAt: deviceTime(at.getTime()),
      });
      void queue.emit('sms:received', {
        messageId: ids.messageId,
        message: input.text,
        receivedAt: deviceTime(at.getTime()),
        sender: input.from,
        ...(options.phoneNumber ? { recipient: options.phoneNumber } : {}),
        phoneNumber: input.from,
        simNumber: 1,
      });
      return ids;
    },
    repeat: queue.repeat,
    emitRaw(event: string, payload: object, emitOptions: { envelopeId?: string } = {}): Promise<void> {
      return queue.emit(event, payload, emitOptions.envelopeId);
    },
    holdWebhooks: queue.hold,
    settled: queue.settled,
    close: () =>
      new Promise<void>((resolve) => {
        queue.close();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export type FakeSmsGate = Awaited<ReturnType<typeof startFakeSmsGate>>;
