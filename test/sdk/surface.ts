/**
 * The official SDK (`sendblue` 3.17.0), unmodified, calling every in-scope method against a real
 * textrelay: the same scenario on the sandbox and through the relay. Each call must return without
 * throwing, with the typed fields present and of the right JS type; error cases reject with the
 * SDK's error class for the status, carrying the error shape.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type APIError, AuthenticationError, BadRequestError, ConflictError, NotFoundError, SendblueAPI } from 'sendblue';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/live.ts';
import { SLOW, type World } from './worlds.ts';

const ALICE = '+14155550111';
const ECHO = '+14155550106';
const SMS_ONLY = '+14155550102';
const isoDate = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);

/** Rejects with the SDK's class for `status`, and the body in the error shape with `code`. */
async function rejectsWith(
  call: Promise<unknown>,
  errorClass: abstract new (...args: any[]) => APIError,
  status: number,
  code: number,
): Promise<APIError> {
  const error = await call.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(errorClass);
  const apiError = error as APIError;
  expect(apiError.status).toBe(status);
  expect(apiError.error).toMatchObject({ status: 'ERROR', error_code: code, error_message: expect.any(String) });
  return apiError;
}

/** An image origin on 127.0.0.1 for media uploads and group photos. */
async function startImageOrigin() {
  const png = Buffer.from(
    '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6360000002000001e221bc330000000049454e44ae426082',
    'hex',
  );
  const server = createServer((req, res) => {
    if (req.url === '/pixel.png') {
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': png.length }).end(png);
    } else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { png, url: `http://127.0.0.1:${port}/pixel.png`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

export function describeSdkSurface(start: () => Promise<World>) {
  let world: World;
  let client: SendblueAPI;
  let line: string;
  let origin: Awaited<ReturnType<typeof startImageOrigin>>;

  beforeAll(async () => {
    world = await start();
    client = world.client;
    line = world.credentials.numbers[0]!;
    origin = await startImageOrigin();
  }, SLOW * 2);

  afterAll(async () => {
    await origin?.close();
    await world?.close();
  });

  describe('messages', () => {
    it('sends, reports its status, and lists and retrieves it through v2', async () => {
      const sent = await client.messages.send({ number: ALICE, from_number: line, content: 'hello from the SDK' });
      expect(sent).toMatchObject({
        message_handle: expect.any(String),
        status: 'QUEUED',
        is_outbound: true,
        number: ALICE,
        from_number: line,
        content: 'hello from the SDK',
        date_created: isoDate,
        date_updated: isoDate,
      });
      const handle = sent.message_handle!;

      const delivered = await eventually('DELIVERED', async () => {
        const status = await client.messages.getStatus({ handle });
        // textrelay reports READ beyond the SDK's enum (docs/sdk.md).
        return ['DELIVERED', 'READ'].includes(String(status.status)) ? status : undefined;
      });
      expect(delivered.message_handle).toBe(handle);

      const retrieved = await client.messages.retrieve(handle);
      expect(retrieved.status).toBe('OK');
      expect(retrieved.data).toMatchObject({
        message_handle: handle,
        content: 'hello from the SDK',
        is_outbound: true,
        number: ALICE,
        from_number: line,
        sendblue_number: line,
        to_number: ALICE,
        message_type: 'message',
        date_sent: isoDate,
        date_updated: isoDate,
        service: expect.stringMatching(/^(iMessage|SMS)$/),
        participants: expect.any(Array),
        opted_out: false,
        group_id: null,
      });

      const page = await client.messages.list({ number: ALICE, is_outbound: 'true', limit: 10, order_direction: 'desc' });
      expect(page.status).toBe('OK');
      expect(page.pagination).toMatchObject({ limit: 10, offset: 0, total: expect.any(Number), hasMore: expect.any(Boolean) });
      expect(page.data!.map((row) => row.message_handle)).toContain(handle);
      expect(page.data!.every((row) => row.is_outbound === true && (row.number === ALICE || row.to_number === ALICE))).toBe(true);
    });

    it('answers 404 for another account’s handle and 400 for a bad filter', async () => {
      const { message_handle: handle } = await client.messages.send({ number: ALICE, from_number: line, content: 'mine' });
      await rejectsWith(world.stranger.messages.retrieve(handle!), NotFoundError, 404, 4040);
      await rejectsWith(client.messages.list({ created_at_gte: 'not a date' }), BadRequestError, 400, 4000);
      await rejectsWith(client.messages.list({ limit: 5000 }), BadRequestError, 400, 4000);
    });

    it('refuses bad credentials with AuthenticationError', async () => {
      const wrong = new SendblueAPI({ apiKey: world.credentials.api_key_id, apiSecret: 'wrong', baseURL: world.server.url, maxRetries: 0 });
      await rejectsWith(wrong.messages.list(), AuthenticationError, 401, 4010);
    });
  });

  describe('contacts', () => {
    it('creates, retrieves, updates, lists, counts and deletes', async () => {
      const phone = '+14155550123';
      const created = await client.contacts.create({ number: phone, first_name: 'Ada', last_name: 'Lovelace', tags: ['vip'] });
      expect(created.status).toBe('OK');
      expect(created.contact).toMatchObject({ phone, first_name: 'Ada', last_name: 'Lovelace', tags: ['vip'], opt_out: false });

      expect((await client.contacts.retrieve(phone)).contact).toMatchObject({ phone, first_name: 'Ada' });
      const updated = await client.contacts.update(phone, { company_name: 'Analytical Engines', custom_variables: { plan: 'gold' } });
      expect(updated.contact).toMatchObject({ company_name: 'Analytical Engines', custom_variables: { plan: 'gold' } });

      const listed = await client.contacts.list({ phone_number: phone });
      expect(Array.isArray(listed)).toBe(true);
      expect(listed.map((contact) => contact.phone)).toEqual([phone]);
      const { count } = await client.contacts.count();
      expect(count).toBeGreaterThanOrEqual(1);

      await rejectsWith(client.contacts.create({ number: phone }), ConflictError, 409, 4090);
      expect(await client.contacts.delete(phone)).toMatchObject({ status: 'OK' });
      await rejectsWith(client.contacts.retrieve(phone), NotFoundError, 404, 4040);
    });

    it('creates and deletes in bulk', async () => {
      const phones = ['+14155550131', '+14155550132'];
      const bulk = await client.contacts.bulk.create({ contacts: phones.map((phone) => ({ phone, first_name: 'Bulk' })) });
      expect(bulk.contacts!.map((contact) => contact.phone)).toEqual(phones);
      const removed = await client.contacts.bulk.delete({ contact_ids: phones });
      expect(removed).toMatchObject({ status: 'OK', amount: 2 });
    });

    it('opts a number out: sends to it are refused until it opts back in', async () => {
      const phone = '+14155550141';
      expect(await client.contacts.optOut({ number: phone })).toMatchObject({ status: 'OK', number: phone, opted_out: true });
      expect((await client.contacts.retrieve(phone)).contact).toMatchObject({ opt_out: true });
      const refused = await rejectsWith(
        client.messages.send({ number: phone, from_number: line, content: 'hi' }),
        BadRequestError,
        400,
        4000,
      );
      expect(JSON.stringify(refused.error)).toContain('opted out');
      await client.contacts.optOut({ number: phone, opted_out: false });
      await expect(client.messages.send({ number: phone, from_number: line, content: 'hi again' })).resolves.toMatchObject({
        status: 'QUEUED',
      });
    });
  });

  describe('account webhooks', () => {
    it('stores entries of every type and delivers receive and outbound, signed by each entry’s secret', async () => {
      const secret = `whsec_${Buffer.from('an outbound secret of 24 bytes!').toString('base64')}`;
      const receiveUrl = world.receiver.url('/receive');
      const outboundUrl = world.receiver.url('/outbound');
      const created = await client.webhooks.create({ webhooks: [receiveUrl], type: 'receive' });
      expect(created.webhooks!.receive).toContain(receiveUrl);
      await client.webhooks.create({ webhooks: [{ url: outboundUrl, secret }], type: 'outbound' });
      await client.webhooks.create({ webhooks: [world.receiver.url('/calls')], type: 'call_log' });
      const listed = await client.webhooks.list();
      expect(listed.webhooks!.outbound).toEqual([{ url: outboundUrl, secret }]);
      expect(listed.webhooks!.call_log).toEqual([world.receiver.url('/calls')]);

      const { message_handle: handle } = await client.messages.send({ number: ECHO, from_number: line, content: 'echo me' });
      const outbound = await eventually('the outbound webhook up to DELIVERED', async () => {
        const bodies = world.receiver.received.filter((request) => request.path === '/outbound' && request.json?.message_handle === handle);
        return bodies.some((request) => request.json.status === 'DELIVERED') ? bodies : undefined;
      });
      expect(outbound.map((request) => request.json.status).slice(0, 2)).toEqual(['QUEUED', 'SENT']);
      const verifier = new Webhook(secret.slice('whsec_'.length));
      for (const request of outbound) expect(() => verifier.verify(request.body, request.headers as Record<string, string>)).not.toThrow();

      const reply = await eventually('the echo reply on the receive webhook', async () =>
        world.receiver.received.find((request) => request.path === '/receive' && request.json?.from_number === ECHO),
      );
      expect(reply.json).toMatchObject({ is_outbound: false, content: expect.any(String) });

      await client.webhooks.delete({ webhooks: [outboundUrl], type: 'outbound' });
      expect((await client.webhooks.list()).webhooks!.outbound ?? []).toEqual([]);
      await rejectsWith(client.webhooks.create({ webhooks: ['ftp://example.com/x'], type: 'receive' }), BadRequestError, 400, 4000);
    });
  });

  describe('typing, lookup, lines, media', () => {
    it('sends a typing indicator', async () => {
      expect(await client.typingIndicators.send({ number: ALICE, from_number: line })).toMatchObject({
        number: ALICE,
        status: 'SENT',
        error_message: null,
      });
    });

    it('looks up a number’s service', async () => {
      expect(await client.lookups.lookupNumber({ number: ALICE })).toMatchObject({ number: ALICE, service: 'iMessage' });
      if (world.name === 'sandbox') expect((await client.lookups.lookupNumber({ number: SMS_ONLY })).service).toBe('SMS');
      await rejectsWith(client.lookups.lookupNumber({ number: 'nope' }), BadRequestError, 400, 4000);
    });

    it('reports the account’s lines', async () => {
      const state = await client.lines.getState();
      expect(state).toMatchObject({ status: 'OK', snapshot_at: isoDate });
      expect(state.data!.map((each) => each.sendblue_number).sort()).toEqual([...world.credentials.numbers].sort());
      for (const each of state.data!)
        expect(each).toMatchObject({ worker_id: expect.any(String), assignment: 'assigned', status: 'ONLINE' });
    });

    it('uploads media, and a send may use the URL it gets', async () => {
      const uploaded = await client.mediaObjects.upload({ media_url: origin.url });
      expect(uploaded).toMatchObject({ status: 'OK', mediaObjectId: expect.any(String) });
      const mediaUrl = (uploaded as { media_url?: string }).media_url!;
      const served = await fetch(mediaUrl);
      expect(served.status).toBe(200);
      expect(Buffer.from(await served.arrayBuffer())).toEqual(origin.png);
      await expect(client.messages.send({ number: ALICE, from_number: line, media_url: mediaUrl })).resolves.toMatchObject({
        status: 'QUEUED',
      });
    });
  });

  describe('groups', () => {
    it('sends to a group, changes its members, renames it and sets its photo', async () => {
      const members = ['+14155550151', '+14155550152'];
      const sent = await client.groups.sendMessage({ numbers: members, from_number: line, content: 'hello group' });
      const groupId = (sent as { group_id?: string }).group_id!;
      expect(groupId).toEqual(expect.any(String));

      const added = await client.groups.modify({ group_id: groupId, modify_type: 'add_recipient', number: '+14155550153' });
      expect(added).toMatchObject({ status: 'OK', group_id: groupId, modify_type: 'add_recipient' });
      await client.groups.modify({ group_id: groupId, modify_type: 'remove_recipient', number: '+14155550151' });

      const renamed = await client.v2.groups.rename(groupId, { group_name: 'Book club' });
      expect(renamed.data).toMatchObject({ group_id: groupId, group_name: 'Book club' });
      const photo = await client.v2.groups.setPhoto(groupId, { photo_url: origin.url });
      expect(photo.data!.group_photo).toMatchObject({ photo_guid: expect.any(String), url: expect.any(String) });

      const group = await client.v2.groups.retrieve(groupId);
      expect(group.data).toMatchObject({ group_id: groupId, group_name: 'Book club' });
      expect([...group.data!.participant_numbers!].sort()).toEqual(['+14155550152', '+14155550153']);
      await rejectsWith(client.v2.groups.retrieve('no-such-group'), NotFoundError, 404, 4040);
    });
  });

  describe('events', () => {
    it('streams the account’s events as the SDK parses them', async () => {
      const controller = new AbortController();
      const stream = await client.events.stream({ types: 'message.created' }, { signal: controller.signal });
      const first = (async () => {
        for await (const event of stream) return event;
        return undefined;
      })();
      await new Promise((resolve) => setTimeout(resolve, 200));
      const { message_handle: handle } = await client.messages.send({ number: ALICE, from_number: line, content: 'evented' });
      const event = await first;
      controller.abort();
      expect(event).toMatchObject({ id: expect.any(String), type: 'message.created', occurred_at: isoDate, version: 1 });
      expect(event!.data).toMatchObject({ message_handle: handle });
    });
  });

  describe('out of scope', () => {
    it('answers 501 at once, without retries', async () => {
      const error = await client.v2.seats.list().then(
        () => undefined,
        (caught: unknown) => caught as APIError,
      );
      expect(error?.status).toBe(501);
      expect(error?.error).toMatchObject({ error_code: 5010 });
      expect(error?.headers?.get('x-should-retry')).toBe('false');
    });
  });
}
