import { afterEach, describe, expect, it } from 'vitest';
import { createConfiguredCarriers } from '../../../src/transports/carriers/registry.ts';
import { signatureOf } from '../../../src/transports/smsgate/signature.ts';
import { expectCallbacksOnce } from '../../helpers/callbacks.ts';
import { SMSGATE_DEVICE_ID, SMSGATE_PASSWORD, SMSGATE_SIGNING_KEY, SMSGATE_USERNAME } from '../../helpers/fake-smsgate.ts';
import { ALICE, BOB } from '../../helpers/fixtures.ts';
import { eventually } from '../../helpers/live.ts';
import { refusal } from '../../helpers/sdk-refusal.ts';
import {
  appliedStatuses,
  callbacksOf,
  callbacksUpTo,
  handedOver,
  SMSGATE_LINE as LINE,
  receivedWebhooks,
  sendOverSmsGate as send,
  sentToPhone,
  startSmsGateSdkWorld,
  statusOf,
  untilStatus as until,
  type SmsGateSdkWorld as World,
} from '../../helpers/smsgate-sdk.ts';

const EVENTS_PATH = '/webhooks/carriers/smsgate/events';
const OUR_IDS = /^textrelay-[0-9a-f]{8}-sms-(received|sent|delivered|failed)$/;

const worlds: World[] = [];
afterEach(async () => {
  await Promise.all(worlds.splice(0).map((world) => world.closeAll()));
});

async function started(options: Parameters<typeof startSmsGateSdkWorld>[0] = {}): Promise<World> {
  const world = await startSmsGateSdkWorld(options);
  worlds.push(world);
  return world;
}

/** The envelope ids the phone sent for `event` (first attempts only). */
const envelopesOf = (world: World, event: string) =>
  world.phone.deliveries.filter((delivery) => delivery.event === event && delivery.attempt === 1).map((delivery) => delivery.envelopeId);

describe('textrelay on SMSGate (an Android phone), driven by the official SDK', () => {
  it('registers one webhook per event at start; a second start leaves one of each, keeps a foreign one, removes a stale one', async () => {
    const world = await started();
    const url = `${world.url}${EVENTS_PATH}`;
    const first = [...world.phone.webhooks.values()];
    expect(first.map((webhook) => webhook.event).sort()).toEqual(['sms:delivered', 'sms:failed', 'sms:received', 'sms:sent']);
    for (const webhook of first) {
      expect(webhook.id).toMatch(OUR_IDS);
      expect(webhook.id.endsWith(webhook.event.replace(':', '-'))).toBe(true);
      expect(webhook.url).toBe(url);
    }
    const foreign = { id: 'other-relay', url: 'https://relay.example.org/webhooks/carriers/smsgate/events', event: 'sms:received' };
    const stale = { id: 'old-textrelay-hook', url, event: 'sms:sent' };
    world.phone.webhooks.set(foreign.id, foreign);
    world.phone.webhooks.set(stale.id, stale);

    // The same installation started again (a restart): same database, same phone.
    const again = createConfiguredCarriers(world.t.config, world.t.deps).find((carrier) => carrier.name === 'smsgate')!;
    await again.start();
    await again.stop();
    const after = [...world.phone.webhooks.values()].sort((a, b) => a.id.localeCompare(b.id));
    expect(after).toEqual([foreign, ...first].sort((a, b) => a.id.localeCompare(b.id)));
  });

  it('sends the message to the phone under its handle, then SENT and DELIVERED (once for three parts), each called back once', async () => {
    const world = await started();
    const { handle, message } = await sentToPhone(world, 'hello over SMS');
    expect(message.body).toEqual({
      id: handle,
      deviceId: SMSGATE_DEVICE_ID,
      textMessage: { text: 'hello over SMS' },
      phoneNumbers: [ALICE],
      withDeliveryReport: true,
    });
    expect(handle.length).toBeLessThanOrEqual(36);
    await world.phone.advance(handle, 'sent', { parts: 3 });
    await until(world, handle, 'SENT');
    await world.phone.advance(handle, 'delivered', { parts: 3 });
    expect(await until(world, handle, 'DELIVERED')).toMatchObject({ error_code: null, error_message: null });
    await callbacksUpTo(world, handle, 'DELIVERED');
    expect(world.phone.deliveries.filter((d) => d.event === 'sms:delivered').map((d) => d.status)).toEqual([204, 204, 204]);
    expectCallbacksOnce(world.receiver, [handle], ['QUEUED', 'SENT', 'DELIVERED']);
    expect(callbacksOf(world, handle)).toEqual(['QUEUED', 'SENT', 'DELIVERED']);
    expect(world.phone.posts).toHaveLength(1);
  });

  it('takes reordered and repeated webhooks (new envelope ids) without moving backwards or calling back twice', async () => {
    const world = await started();
    const { handle } = await sentToPhone(world);
    const flush = world.phone.holdWebhooks();
    await world.phone.advance(handle, 'sent');
    await world.phone.advance(handle, 'delivered', { parts: 2 });
    await flush();
    await until(world, handle, 'DELIVERED');
    for (const envelope of [...envelopesOf(world, 'sms:sent'), ...envelopesOf(world, 'sms:delivered')]) await world.phone.repeat(envelope);
    await callbacksUpTo(world, handle, 'DELIVERED');
    expect(world.phone.deliveries.filter((d) => d.event === 'sms:sent')).toHaveLength(2);
    expect(world.phone.deliveries.every((d) => d.status === 204)).toBe(true);
    expect(await statusOf(world, handle)).toMatchObject({ status: 'DELIVERED' });
    // DELIVERED first implies SENT; the late sms:sent and every repeat are recorded as not applied.
    expectCallbacksOnce(world.receiver, [handle], ['QUEUED', 'SENT', 'DELIVERED']);
    expect(await appliedStatuses(world, handle)).toEqual(['QUEUED', 'SENT', 'DELIVERED']);
  });

  it("fails a message the phone could not send with SMSGate's reason, and names Android's limit when it is hit", async () => {
    const world = await started();
    const { handle } = await sentToPhone(world, 'to no signal');
    await world.phone.advance(handle, 'failed', { reason: 'Send result: RESULT_ERROR_NO_SERVICE' });
    const failed = await until(world, handle, 'ERROR');
    expect(failed.error_code).not.toBe(0);
    expect(failed).toMatchObject({ error_code: 10001, error_message: 'SMSGate: Send result: RESULT_ERROR_NO_SERVICE' });
    // A late sms:delivered (a webhook reordered) does not revive it.
    await world.phone.emitRaw('sms:delivered', { messageId: handle, recipient: ALICE, phoneNumber: ALICE, simNumber: 1 });
    await callbacksUpTo(world, handle, 'ERROR');
    expect(await statusOf(world, handle)).toMatchObject({ status: 'ERROR' });
    expectCallbacksOnce(world.receiver, [handle], ['QUEUED', 'ERROR']);

    const limited = await sentToPhone(world, 'the 31st this minute');
    await world.phone.advance(limited.handle, 'failed', { reason: 'Send result: RESULT_ERROR_LIMIT_EXCEEDED' });
    const refused = await until(world, limited.handle, 'ERROR');
    expect(refused.error_code).toBe(10001);
    expect(refused.error_message).toMatch(/^SMSGate: Send result: RESULT_ERROR_LIMIT_EXCEEDED/);
    expect(refused.error_message).toContain('30 SMS a minute');
  });

  it('never sends twice a message the phone already has (409 on its id): it reads its state and carries on', async () => {
    const world = await started({ retrySchedule: '0.5,0.5' });
    world.phone.control.failSendsNext = 1;
    const handle = await send(world, 'answer lost');
    const first = await eventually('the first attempt', async () => world.phone.posts[0], 10_000);
    expect(first.status).toBe(500);
    // The phone took that very request after all (its answer lost on the way): it has the message under the id.
    const taken = await fetch(`${world.phone.url}/messages`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${SMSGATE_USERNAME}:${SMSGATE_PASSWORD}`).toString('base64')}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify(first.body),
    });
    expect(taken.status).toBe(202);
    // The phone sent it meanwhile, its webhook not yet out: the 409 makes textrelay read that state.
    const flush = world.phone.holdWebhooks();
    await world.phone.advance(handle, 'sent');
    await eventually('the retry', async () => (world.phone.posts.length === 3 ? true : undefined), 10_000);
    expect(world.phone.posts.map((post) => post.status)).toEqual([500, 202, 409]);
    await handedOver(world, handle);
    expect(world.phone.messages.filter((message) => message.id === handle)).toHaveLength(1);
    await until(world, handle, 'SENT');
    await flush();
    await world.phone.advance(handle, 'delivered');
    await until(world, handle, 'DELIVERED');
    await callbacksUpTo(world, handle, 'DELIVERED');
    expectCallbacksOnce(world.receiver, [handle], ['QUEUED', 'SENT', 'DELIVERED']);
    expect(world.phone.posts).toHaveLength(3);
  });

  it('retries a send the phone answers with 5xx or 429, sending it once; fails at once one it refuses with 400', async () => {
    const world = await started();
    world.phone.control.failSendsNext = 2;
    const { handle } = await sentToPhone(world, 'after two 500s');
    expect(world.phone.posts.map((post) => post.status)).toEqual([500, 500, 202]);
    expect(world.phone.messages.filter((message) => message.id === handle)).toHaveLength(1);
    expect((await statusOf(world, handle)).status).toBe('QUEUED');

    world.phone.control.refuseSendsNext = { status: 429, message: 'Too Many Requests' };
    const throttled = await sentToPhone(world, 'after a 429');
    expect(world.phone.posts.slice(3).map((post) => post.status)).toEqual([429, 202]);
    expect(world.phone.messages.filter((message) => message.id === throttled.handle)).toHaveLength(1);

    world.phone.control.refuseSendsNext = { status: 400, message: 'Invalid phone number' };
    const bad = await send(world, 'refused');
    const refused = await until(world, bad, 'ERROR');
    expect(refused).toMatchObject({ error_code: 10001, error_message: 'SMSGate HTTP 400: Invalid phone number' });
    expect(world.phone.posts.slice(5).map((post) => post.status)).toEqual([400]);
    expect(world.phone.messages.some((message) => message.id === bad)).toBe(false);
  });

  it('refuses group messages, media and typing on the SMSGate line with 400 naming SMSGate; nothing reaches the phone', async () => {
    const world = await started();
    const group = await refusal(world.sdk.groups.sendMessage({ numbers: [ALICE, BOB], from_number: LINE, content: 'hi all' }));
    expect(group.status).toBe(400);
    expect(group.error).toMatchObject({
      error_code: 4000,
      error_message: `${LINE} is delivered by SMSGate, which cannot carry group messages`,
    });
    const media = await refusal(
      world.sdk.messages.send({ number: ALICE, from_number: LINE, content: 'look', media_url: 'https://example.com/picture.png' }),
    );
    expect(media.status).toBe(400);
    expect(media.error).toMatchObject({ error_code: 4000, error_message: `${LINE} is delivered by SMSGate, which cannot carry media` });
    const typing = await refusal(world.sdk.typingIndicators.send({ number: ALICE, from_number: LINE }));
    expect(typing.status).toBe(400);
    expect(typing.error).toMatchObject({
      error_code: 4000,
      error_message: `${LINE} is delivered by SMSGate, which cannot carry typing indicators`,
    });
    expect((await world.sdk.messages.list({ number: ALICE })).data).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(world.phone.posts).toEqual([]);
    expect(world.phone.messages).toEqual([]);
  });

  it('answers 401 to webhooks signed with another key, stale by ten minutes or unsigned, and records nothing', async () => {
    const world = await started();
    const { handle } = await sentToPhone(world);
    world.phone.control.signingKey = 'not-the-phones-key';
    await world.phone.advance(handle, 'sent');
    world.phone.receive({ from: BOB, text: 'forged' });
    await world.phone.settled();
    world.phone.control.signingKey = SMSGATE_SIGNING_KEY;
    world.phone.control.timestampSkewS = 600;
    await world.phone.advance(handle, 'delivered');
    world.phone.receive({ from: BOB, text: 'replayed' });
    await world.phone.settled();
    const unsigned = await fetch(`${world.url}${EVENTS_PATH}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        id: 'unsigned-envelope',
        webhookId: 'x',
        event: 'sms:delivered',
        deviceId: SMSGATE_DEVICE_ID,
        payload: { messageId: handle, recipient: ALICE, phoneNumber: ALICE },
      }),
    });
    expect(unsigned.status).toBe(401);
    expect(world.phone.deliveries.length).toBeGreaterThan(0);
    expect(new Set(world.phone.deliveries.map((delivery) => delivery.status))).toEqual(new Set([401]));
    expect(await statusOf(world, handle)).toMatchObject({ status: 'QUEUED' });
    expect((await world.t.store.messages.history(handle)).map((event) => event.status)).toEqual(['QUEUED']);
    expect((await world.sdk.messages.list({ number: BOB })).data).toEqual([]);
    expect(world.receiver.received.filter((request) => request.path === '/receive')).toEqual([]);
  });

  it('answers 204 to signed bodies that are not events and records nothing; an SMS with a NUL arrives with U+FFFD', async () => {
    const world = await started();
    const post = (body: string) => {
      const timestamp = String(Math.floor(world.t.clock.now() / 1000));
      const signature = signatureOf(SMSGATE_SIGNING_KEY, body, timestamp);
      const headers = { 'content-type': 'application/json', 'x-timestamp': timestamp, 'x-signature': signature };
      return fetch(`${world.url}${EVENTS_PATH}`, { method: 'POST', headers, body });
    };
    const unreadable = [
      'not json',
      JSON.stringify({ id: 'no-event' }),
      JSON.stringify({
        id: 'no-sender',
        event: 'sms:received',
        deviceId: SMSGATE_DEVICE_ID,
        payload: { messageId: 'abc', message: 'who?' },
      }),
      JSON.stringify({ id: 'not-ours', event: 'sms:sent', deviceId: SMSGATE_DEVICE_ID, payload: { messageId: 'another-clients-id' } }),
    ];
    for (const body of unreadable) expect((await post(body)).status).toBe(204);
    expect((await world.sdk.messages.list({})).data).toEqual([]);
    expect(await world.t.store.orphans.take('another-clients-id')).toEqual([]);

    await world.phone.emitRaw('sms:received', {
      messageId: 'beef',
      sender: BOB,
      message: 'a NUL \u0000 inside',
      receivedAt: '2026-11-23T09:30:00.000Z',
    });
    await eventually('the SMS to reach the receive webhook', async () =>
      receivedWebhooks(world, 'a NUL \ufffd inside').length === 1 ? true : undefined,
    );
    expect(world.phone.deliveries.filter((delivery) => delivery.event === 'sms:received').map((delivery) => delivery.status)).toEqual([
      204,
    ]);
  });

  it('delivers an SMS the phone received to the receive webhook once, listed once, however often the phone repeats it', async () => {
    const world = await started();
    world.phone.receive({ from: BOB, text: 'hi from Android' });
    await eventually('the receive webhook', async () => (receivedWebhooks(world, 'hi from Android').length > 0 ? true : undefined), 10_000);
    for (const envelope of envelopesOf(world, 'sms:received')) await world.phone.repeat(envelope);
    await world.phone.settled();
    expect(world.phone.deliveries.filter((d) => d.event === 'sms:received').map((d) => d.status)).toEqual([204, 204]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const [webhook, ...more] = receivedWebhooks(world, 'hi from Android');
    expect(more).toEqual([]);
    expect(webhook!.json).toMatchObject({ from_number: BOB, to_number: LINE, is_outbound: false, content: 'hi from Android' });
    const listed = (await world.sdk.messages.list({ number: BOB })).data ?? [];
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({
      content: 'hi from Android',
      is_outbound: false,
      from_number: BOB,
      to_number: LINE,
      status: 'RECEIVED',
    });
  });

  it('opts the sender out on STOP as on other lines, refusing later sends to them without asking the phone', async () => {
    const world = await started();
    world.phone.receive({ from: BOB, text: 'STOP' });
    await eventually(
      'the opt-out',
      async () => ((await world.sdk.contacts.retrieve(BOB)).contact?.opt_out === true ? true : undefined),
      10_000,
    );
    const again = await world.t.call('POST', '/api/send-message', world.account, { number: BOB, from_number: LINE, content: 'one more?' });
    expect(again.status).toBe(400);
    expect(again.body).toMatchObject({ error_code: 4000, error_message: expect.stringContaining('opted out') });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(world.phone.posts).toEqual([]);
    world.phone.receive({ from: BOB, text: 'START' });
    await eventually(
      'the opt-in',
      async () => ((await world.sdk.contacts.retrieve(BOB)).contact?.opt_out === false ? true : undefined),
      10_000,
    );
  });
});
