/**
 * A BlueBubbles server (carriers.md A.11) on 127.0.0.1: its REST API over the fake Mac of
 * world.ts, with the password check, the Private API switch and injectable send failures.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { type Context, Hono } from 'hono';
import { addChatRoutes } from './chat-routes.ts';
import { createWorld, type FakeMessage } from './world.ts';

/** How the next send fails: an error row (`data.error`), the "500 with data null" after a delay (sent or not), the helper gone, a plain 500. */
export type SendFault =
  | { kind: 'error'; code: number }
  | { kind: 'unknown'; delayMs: number; sent: boolean }
  | { kind: 'helperDown' }
  | { kind: 'serverError' }
  | { kind: 'proxyError' };

const PRIVATE_API_FIELDS = ['subject', 'effectId', 'selectedMessageGuid'];
const EVENTS = [
  '*',
  'new-message',
  'updated-message',
  'message-send-error',
  'group-name-change',
  'participant-added',
  'participant-removed',
  'participant-left',
  'typing-indicator',
  'chat-read-status-changed',
];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function startFakeBlueBubbles(options: { password?: string; port?: number } = {}) {
  const world = createWorld();
  const settings = {
    password: options.password ?? 'mac-password-Secret1',
    privateApi: true,
    helperConnected: true,
    detectedImessage: 'me@icloud.com',
    /** The addresses the Mac's Apple ID sends and receives iMessages at (`icloud/account`'s vetted aliases). */
    aliases: ['me@icloud.com', '+16175550199'],
    osVersion: '15.5',
    serverVersion: '1.9.9',
  };
  const faults: SendFault[] = [];
  /** Every send call (text, attachment, chat/new) as received. */
  const sends: { path: string; body: Record<string, any> }[] = [];
  const requests: { method: string; url: string }[] = [];
  const inFlight = new Set<string>();
  /** `changeFault`: the next group change fails after the server's wait, as one Messages never shows. */
  /** `chatFault`: every `GET chat/:guid` answers 500 (the Messages database busy). */
  const control = { sendDelayMs: 0, autoEcho: true, changeFault: false, chatFault: false };

  const fail = (c: Context, status: number, message: string, type: string, detail = message, data: unknown = null) =>
    c.json({ status, message, error: { type, message: detail }, data }, status as 400);
  /** An error the server answers without a `data` field at all. */
  const failBare = (c: Context, status: number, message: string, type: string, detail: string) =>
    c.json({ status, message, error: { type, message: detail } }, status as 400);
  const ok = (c: Context, data: unknown, message = 'Success') => c.json({ status: 200, message, data });
  const helperMissing = (c: Context) =>
    !settings.privateApi || !settings.helperConnected
      ? fail(
          c,
          500,
          'Please make sure you have completed the setup for the Private API, and your helper is connected!',
          'iMessage Error',
          settings.privateApi ? 'iMessage Private API Helper is not connected!' : 'iMessage Private API is not enabled!',
        )
      : undefined;

  /** The send part shared by message/text, message/attachment and chat/new: faults, the in-flight check, the row, the echoes. */
  async function sendInto(c: Context, chatGuid: string, text: string, tempGuid: string | undefined, extra: Partial<FakeMessage> = {}) {
    if (tempGuid && inFlight.has(tempGuid))
      return { answer: fail(c, 400, `Message is already queued to be sent! (Temp GUID: ${tempGuid})`, 'Validation Error') };
    if (tempGuid) inFlight.add(tempGuid);
    try {
      if (control.sendDelayMs > 0) await sleep(control.sendDelayMs);
      const fault = faults.shift();
      if (fault?.kind === 'helperDown')
        return { answer: fail(c, 500, 'Message Send Error', 'iMessage Error', 'iMessage Private API Helper is not connected!') };
      // A tunnel or proxy in front of the Mac answering with the URL it could not route, password included.
      if (fault?.kind === 'proxyError') return { answer: c.json({ message: `Bad gateway for ${c.req.url}` }, 502) };
      if (fault?.kind === 'serverError')
        return { answer: fail(c, 500, 'An unhandled error has occurred!', 'Server Error', 'socket hang up') };
      const chat = world.chat(chatGuid)!;
      const service = chatGuid.startsWith('SMS;')
        ? 'SMS'
        : chat.style === 45
          ? world.serviceFor(chat.participants[0]!.address)
          : 'iMessage';
      if (fault?.kind === 'unknown') {
        await sleep(fault.delayMs);
        if (fault.sent)
          world.store({
            chatGuid,
            text,
            isFromMe: true,
            ...extra,
            handle: chat.style === 45 ? { ...chat.participants[0]!, service } : null,
          });
        return {
          answer: fail(c, 500, 'Message Send Error', 'iMessage Error', 'Failed to send message! Message not found after 2 minutes!'),
        };
      }
      const message = world.store({
        chatGuid,
        text,
        isFromMe: true,
        ...extra,
        handle: chat.style === 45 ? { ...chat.participants[0]!, service } : null,
      });
      // A row saved with an error: each route answers it its own way (carriers.md A.3-A.5).
      if (fault?.kind === 'error') message.error = fault.code;
      else if (control.autoEcho) setImmediate(() => world.echo(message, tempGuid));
      return { message };
    } finally {
      if (tempGuid) inFlight.delete(tempGuid);
    }
  }

  const app = new Hono();
  app.use('/api/v1/*', async (c, next) => {
    requests.push({ method: c.req.method, url: c.req.url });
    const given = (c.req.query('guid') ?? c.req.query('password') ?? c.req.query('token'))?.trim();
    if (given === undefined) return fail(c, 401, 'Unauthorized', 'Authentication Error', 'Missing server password!');
    if (given !== settings.password) return fail(c, 401, 'Unauthorized', 'Authentication Error');
    await next();
  });
  app.get('/api/v1/ping', (c) => ok(c, 'pong', 'Ping received!'));
  app.get('/api/v1/server/info', (c) =>
    ok(c, {
      computer_id: 'fake',
      os_version: settings.osVersion,
      server_version: settings.serverVersion,
      private_api: settings.privateApi,
      helper_connected: settings.helperConnected,
      proxy_service: 'cloudflare',
      detected_icloud: settings.detectedImessage,
      detected_imessage: settings.detectedImessage,
    }),
  );

  app.get('/api/v1/icloud/account', (c) => {
    const missing = helperMissing(c);
    return (
      missing ??
      ok(
        c,
        { apple_id: settings.detectedImessage, vetted_aliases: settings.aliases.map((Alias) => ({ Alias, Status: 3 })) },
        'Successfully fetched account info!',
      )
    );
  });

  app.post('/api/v1/message/text', async (c) => {
    const body = await c.req.json();
    if (!body.chatGuid) return fail(c, 400, 'Validation Error', 'Validation Error', 'The chatGuid field is required.');
    if (typeof body.message !== 'string') return fail(c, 400, 'Validation Error', 'Validation Error', 'The message field is required.');
    if (PRIVATE_API_FIELDS.some((field) => body[field]) || body.method === 'private-api') {
      const missing = helperMissing(c);
      if (missing) return missing;
    }
    sends.push({ path: 'message/text', body });
    if (!world.chat(body.chatGuid)) {
      const [service, kind, address] = body.chatGuid.split(';');
      if (kind !== '-') return fail(c, 500, 'Message Send Error', 'iMessage Error', 'Chat does not exist!');
      world.ensureChat(body.chatGuid, [address], service === 'SMS' ? 'SMS' : 'iMessage');
    }
    const { answer, message } = await sendInto(c, body.chatGuid, body.message, body.tempGuid);
    if (answer) return answer;
    // The route re-wraps its own error: the row's code is not in the answer.
    if (message!.error !== 0)
      return failBare(c, 500, 'Message Send Error', 'iMessage Error', '[500] Message sent with an error. See attached message');
    return ok(c, world.view(message!, { tempGuid: body.tempGuid }), 'Message sent!');
  });

  app.post('/api/v1/message/attachment', async (c) => {
    const form = await c.req.parseBody();
    const file = form.attachment;
    if (!(file instanceof File) || file.size === 0)
      return fail(c, 400, 'Validation Error', 'Validation Error', 'The attachment field is required.');
    if (typeof form.name !== 'string' || !form.chatGuid)
      return fail(c, 400, 'Validation Error', 'Validation Error', 'The name field is required.');
    const chatGuid = String(form.chatGuid);
    sends.push({ path: 'message/attachment', body: { ...form, attachment: { name: file.name, type: file.type, size: file.size } } });
    if (!world.chat(chatGuid)) return fail(c, 500, 'Message Send Error', 'iMessage Error', 'Chat does not exist!');
    const bytes = Buffer.from(await file.arrayBuffer());
    const attachments = [
      { guid: `AT-${crypto.randomUUID()}`, mimeType: file.type, transferName: form.name, totalBytes: bytes.length, bytes },
    ];
    const tempGuid = typeof form.tempGuid === 'string' ? form.tempGuid : undefined;
    const { answer, message } = await sendInto(c, chatGuid, '\uFFFC', tempGuid, { attachments });
    // 200 even when the row has an error, and no tempGuid in the answer.
    return answer ?? ok(c, world.view(message!), 'Attachment sent!');
  });

  app.post('/api/v1/chat/new', async (c) => {
    const body = await c.req.json();
    const addresses: string[] = body.addresses ?? [];
    if (addresses.length === 0) return fail(c, 400, 'Validation Error', 'Validation Error', 'The addresses field is required.');
    const privateApi = body.method === 'private-api';
    if (privateApi || addresses.length > 1) {
      if (!privateApi)
        return fail(c, 500, 'Failed to create chat!', 'Server Error', 'Cannot create group chats on macOS Big Sur or newer!');
      const missing = helperMissing(c);
      if (missing) return missing;
    }
    sends.push({ path: 'chat/new', body });
    const service = body.service === 'SMS' ? 'SMS' : 'iMessage';
    const guid =
      addresses.length > 1 ? `iMessage;+;chat${Date.now()}${Math.floor(Math.random() * 1e6)}` : world.oneToOneGuid(addresses[0]!, service);
    const chat = world.ensureChat(guid, addresses, service);
    const { answer, message } = await sendInto(c, guid, body.message ?? '', body.tempGuid);
    return answer ?? ok(c, world.chatView(chat, [message!], body.tempGuid), 'Successfully created chat!');
  });

  app.get('/api/v1/chat/:guid', (c) => {
    if (control.chatFault) return fail(c, 500, 'An unhandled error has occurred!', 'Server Error', 'SQLITE_BUSY: database is locked');
    const chat = world.chat(c.req.param('guid'));
    return chat ? ok(c, world.chatView(chat)) : fail(c, 404, 'Chat does not exist!', 'Database Error');
  });
  const { changes, typing } = addChatRoutes(app, { world, settings, control, fail, ok, helperMissing });

  app.get('/api/v1/message/:guid', (c) => {
    const message = world.messages.get(c.req.param('guid'));
    return message ? ok(c, world.view(message)) : fail(c, 404, 'Message does not exist!', 'Database Error');
  });
  app.post('/api/v1/message/query', async (c) => {
    const body = await c.req.json();
    let found = [...world.messages.values()].filter(
      (m) => (body.chatGuid ? m.chatGuid === body.chatGuid : true) && (body.after ? m.dateCreated >= body.after : true),
    );
    found.sort((a, b) => (body.sort === 'DESC' ? b.dateCreated - a.dateCreated : a.dateCreated - b.dateCreated));
    const total = found.length;
    found = found.slice(body.offset ?? 0, (body.offset ?? 0) + (body.limit ?? 100));
    const withChats = (body.with ?? []).some((w: string) => w.startsWith('chat'));
    // Attachments come back only when `with` asks for them.
    const withAttachments = (body.with ?? []).some((w: string) => w.startsWith('attachment'));
    return c.json({
      status: 200,
      message: 'Success',
      data: found.map((m) => world.view(m, { chats: withChats, attachments: withAttachments })),
      metadata: { offset: body.offset ?? 0, limit: body.limit ?? 100, total, count: found.length },
    });
  });
  app.get('/api/v1/attachment/:guid/download', (c) => {
    // A file Messages has not downloaded from iCloud, or cannot read: the route's error.
    if (world.unservable.has(c.req.param('guid')))
      return fail(c, 500, 'An unhandled error has occurred!', 'Server Error', 'Attachment not downloaded on server!');
    for (const message of world.messages.values())
      for (const attachment of message.attachments)
        if (attachment.guid === c.req.param('guid'))
          return c.body(new Uint8Array(attachment.bytes), 200, { 'content-type': attachment.mimeType });
    return fail(c, 404, 'Attachment does not exist!', 'Database Error');
  });
  app.get('/api/v1/handle/availability/imessage', (c) => {
    const missing = helperMissing(c);
    return missing ?? ok(c, { available: !world.smsOnly.has(c.req.query('address') ?? '') });
  });

  app.get('/api/v1/webhook', (c) => {
    const url = c.req.query('url');
    return ok(
      c,
      world.webhooks.filter((webhook) => url === undefined || webhook.url === url),
    );
  });
  app.post('/api/v1/webhook', async (c) => {
    const body = await c.req.json();
    if (typeof body.url !== 'string' || !body.url.startsWith('http'))
      return fail(c, 400, 'Validation Error', 'Validation Error', 'The url must start with http');
    const unknown = (body.events ?? []).find((event: string) => !EVENTS.includes(event));
    if (unknown) return fail(c, 400, `Invalid webhook event: ${unknown}`, 'Validation Error');
    const existing = world.webhooks.find((webhook) => webhook.url === body.url);
    return ok(c, existing ?? world.newWebhook(body.url, body.events), 'Successfully created webhook!');
  });
  app.delete('/api/v1/webhook/:id', (c) => {
    const index = world.webhooks.findIndex((webhook) => webhook.id === Number(c.req.param('id')));
    if (index < 0) return fail(c, 404, 'Webhook does not exist!', 'Database Error');
    world.webhooks.splice(index, 1);
    return ok(c, null, 'Successfully deleted webhook!');
  });

  let server: Server | undefined;
  let port = options.port ?? 0;
  async function listen(): Promise<void> {
    server = await new Promise<Server>((resolve) => {
      const started = serve({ fetch: app.fetch, port, hostname: '127.0.0.1' }, () => resolve(started as Server));
    });
    port = (server.address() as AddressInfo).port;
  }
  async function close(): Promise<void> {
    const current = server;
    server = undefined;
    if (!current) return;
    await new Promise<void>((resolve) => {
      current.close(() => resolve());
      current.closeAllConnections();
    });
  }
  await listen();

  return {
    url: `http://127.0.0.1:${port}`,
    world,
    settings,
    control,
    faults,
    sends,
    requests,
    typing,
    changes,
    /** Connections refused until `restart`. */
    stop: close,
    restart: listen,
    close: async () => {
      await world.settled();
      await close();
    },
  };
}

export type FakeBlueBubbles = Awaited<ReturnType<typeof startFakeBlueBubbles>>;
