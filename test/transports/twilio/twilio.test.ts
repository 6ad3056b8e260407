import { afterEach, describe, expect, it } from 'vitest';
import { PIXEL_PNG } from '../../helpers/fake-twilio.ts';
import { ALICE, BOB } from '../../helpers/fixtures.ts';
import { serveOnLoopback } from '../../helpers/listen.ts';
import { startTwilioWorld, type TwilioWorld } from '../../helpers/twilio-world.ts';

const LINE = '+14155550190';
const OTHER_NUMBER = '+14155550199';

const worlds: TwilioWorld[] = [];
afterEach(async () => {
  await Promise.all(worlds.splice(0).map((world) => world.close()));
});

async function started(options: Parameters<typeof startTwilioWorld>[0] = { lines: [LINE] }): Promise<TwilioWorld> {
  const world = await startTwilioWorld(options);
  worlds.push(world);
  await world.start();
  return world;
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (let waited = 0; ; waited += 20) {
    const value = await read();
    if (done(value)) return value;
    if (waited > 10_000) throw new Error(`timed out; last: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Sends through the SDK and waits for the fake Twilio to have the message. */
async function sendThroughTwilio(world: TwilioWorld, content = 'hello over SMS', number = ALICE) {
  const sent = await world.sdk.messages.send({ number, from_number: LINE, content });
  const handle = sent.message_handle as string;
  const message = await until(
    async () => world.twilio.messages.find((m) => m.form.get('StatusCallback')?.endsWith(`m=${encodeURIComponent(handle)}`)),
    (found) => found !== undefined,
  );
  return { handle, message: message! };
}

async function statusOf(world: TwilioWorld, handle: string) {
  const { data } = await world.sdk.messages.retrieve(handle);
  if (!data) throw new Error(`no message ${handle}`);
  return data;
}

describe('textrelay on Twilio, driven by the official SDK', () => {
  it("points the line's incoming messages at textrelay at start, and leaves the account's other numbers alone", async () => {
    const world = await started({ lines: [LINE], otherNumbers: [OTHER_NUMBER] });
    const [line, other] = world.twilio.numbers;
    expect(line).toMatchObject({ phone_number: LINE, sms_url: `${world.url}/webhooks/carriers/twilio/inbound` });
    expect(other).toMatchObject({ phone_number: OTHER_NUMBER, sms_url: null });
  });

  it("sends from the line, stores Twilio's sid, and takes reordered and repeated callbacks once each", async () => {
    const world = await started();
    const { handle, message } = await sendThroughTwilio(world);
    expect(Object.fromEntries(message.form)).toEqual({
      From: LINE,
      To: ALICE,
      Body: 'hello over SMS',
      StatusCallback: `${world.url}/webhooks/carriers/twilio/status?m=${encodeURIComponent(handle)}`,
    });
    expect((await world.twilio.callback(message, 'delivered')).status).toBe(204);
    expect((await world.twilio.callback(message, 'sent')).status).toBe(204);
    expect((await world.twilio.callback(message, 'delivered')).status).toBe(204);
    const delivered = await until(
      () => statusOf(world, handle),
      (m) => m.status === 'DELIVERED',
    );
    expect(delivered).toMatchObject({ status: 'DELIVERED', error_code: null });
    const stored = await until(
      () => world.t.store.messages.findByAnyHandle(handle),
      (m) => m?.transportHandle === message.sid,
    );
    expect(stored?.transportHandle).toBe(message.sid);
    const history = await world.t.store.messages.history(handle);
    expect(history.filter((event) => event.applied).map((event) => event.status)).toEqual(['QUEUED', 'SENT', 'DELIVERED']);
  });

  it('shows the carrier of each line in lines.getState and /metrics', async () => {
    const world = await started();
    const { message } = await sendThroughTwilio(world);
    await world.twilio.callback(message, 'sent');
    const states = await until(
      () => world.sdk.lines.getState(),
      (answer) => (answer.data?.[0] as { carrier?: { events: number } } | undefined)?.carrier?.events === 1,
    );
    expect(states.data?.[0]).toMatchObject({
      sendblue_number: LINE,
      status: 'ONLINE',
      carrier: { name: 'twilio', reachable: true, last_error: null, sends: 1, events: 1 },
    });
    const metrics = await (await fetch(`${world.url}/metrics`)).text();
    expect(metrics).toContain('textrelay_carrier_reachable{carrier="twilio"} 1');
    expect(metrics).toContain('textrelay_carrier_sends_total{carrier="twilio"} 1');
    expect(metrics).toContain('textrelay_carrier_events_total{carrier="twilio"} 1');
    expect(metrics).toContain('# TYPE textrelay_carrier_sends_total counter');
    expect(metrics).toContain('# TYPE textrelay_carrier_events_total counter');
  });

  it("fails an undelivered message with Twilio's code and words", async () => {
    const world = await started();
    const { handle, message } = await sendThroughTwilio(world);
    await world.twilio.callback(message, 'undelivered', { ErrorCode: '30003' });
    expect(
      await until(
        () => statusOf(world, handle),
        (m) => m.status === 'ERROR',
      ),
    ).toMatchObject({
      error_code: 10001,
      error_message: 'Twilio 30003: Unreachable destination handset',
    });
  });

  it('answers 403 to a forged or unsigned callback and records nothing', async () => {
    const world = await started();
    const { handle, message } = await sendThroughTwilio(world);
    expect((await world.twilio.callback(message, 'delivered', {}, 'Zm9yZ2Vk')).status).toBe(403);
    expect((await world.twilio.callback(message, 'delivered', {}, '')).status).toBe(403);
    const { answer } = world.twilio.inbound({ from: BOB, to: LINE, body: 'forged', signature: 'Zm9yZ2Vk' });
    expect((await answer).status).toBe(403);
    expect((await statusOf(world, handle)).status).toBe('QUEUED');
    expect(await world.t.store.messages.findByAnyHandle(handle)).toMatchObject({ status: 'QUEUED' });
    expect((await world.sdk.messages.list({ number: BOB })).data).toEqual([]);
  });

  it('fails a message Twilio refuses with 21610 (the person replied STOP), records the opt-out, and refuses later sends', async () => {
    const world = await started();
    world.twilio.optedOut.add(BOB);
    const sent = await world.sdk.messages.send({ number: BOB, from_number: LINE, content: 'hi' });
    expect(
      await until(
        () => statusOf(world, sent.message_handle as string),
        (m) => m.status === 'ERROR',
      ),
    ).toMatchObject({
      error_code: 10001,
      error_message: 'Twilio 21610: Attempt to send to unsubscribed recipient',
    });
    expect((await world.sdk.contacts.retrieve(BOB)).contact).toMatchObject({ opt_out: true });
    const attempts = world.twilio.attempts.length;
    const again = await world.t.call('POST', '/api/send-message', world.account, { number: BOB, from_number: LINE, content: 'hi again' });
    expect(again.status).toBe(400);
    expect(again.body).toMatchObject({
      error_code: 4000,
      error_message: `${BOB} has opted out of messages from this account (it replied STOP or was opted out through the API)`,
    });
    expect(world.twilio.attempts).toHaveLength(attempts);
    // Someone else on the same account is not touched.
    expect(
      (await world.t.call('POST', '/api/send-message', world.account, { number: ALICE, from_number: LINE, content: 'hi' })).status,
    ).toBe(202);
  });

  it('retries a throttled send, and fails one Twilio keeps refusing with 5xx once the schedule is spent', async () => {
    const world = await started();
    world.twilio.throttle(2);
    const { handle } = await sendThroughTwilio(world, 'after the throttle');
    expect(await world.t.store.messages.findByAnyHandle(handle)).toMatchObject({ status: 'QUEUED' });
    world.twilio.failWith503(10);
    const down = await world.sdk.messages.send({ number: BOB, from_number: LINE, content: 'while down' });
    expect(
      await until(
        () => statusOf(world, down.message_handle as string),
        (m) => m.status === 'ERROR',
      ),
    ).toMatchObject({
      error_code: 10001,
      error_message: 'Twilio answered 503 (20500): Service Unavailable (gave up after 3 attempts)',
    });
  });

  it("delivers an inbound MMS to the line's account with its picture served by textrelay, once", async () => {
    const world = await started();
    const { sid, answer } = world.twilio.inbound({ from: BOB, to: LINE, body: 'look', media: 1 });
    const answered = await answer;
    expect(answered).toEqual({
      status: 200,
      contentType: 'text/xml',
      body: '<?xml version="1.0" encoding="UTF-8"?><Response/>',
    });
    const [received] = (await world.sdk.messages.list({ number: BOB })).data ?? [];
    expect(received).toMatchObject({ content: 'look', is_outbound: false, status: 'RECEIVED', from_number: BOB, to_number: LINE });
    expect(received!.media_url).toMatch(new RegExp(`^${world.url}/media/`));
    const picture = await fetch(received!.media_url as string);
    expect(Buffer.from(await picture.arrayBuffer())).toEqual(PIXEL_PNG);
    expect((await world.t.store.messages.findByAnyHandle(sid))?.content).toBe('look');
    const again = world.twilio.inbound({ from: BOB, to: LINE, body: 'look', media: 1 });
    expect((await again.answer).status).toBe(200);
    expect((await world.sdk.messages.list({ number: BOB })).data).toHaveLength(2);
  });

  it('delivers each picture of an MMS as a message of its own, in order, and a repeat adds none', async () => {
    const world = await started();
    const { sid, answer } = world.twilio.inbound({ from: BOB, to: LINE, body: 'three', media: 3 });
    expect((await answer).status).toBe(200);
    const received = ((await world.sdk.messages.list({ number: BOB })).data ?? []).reverse();
    expect(received.map((message) => message.content)).toEqual(['three', '', '']);
    for (const message of received) expect(message.media_url).toMatch(new RegExp(`^${world.url}/media/`));
    expect(new Set(received.map((message) => message.media_url)).size).toBe(3);
    const repeat = world.twilio.inbound({ from: BOB, to: LINE, body: 'three', media: 3, extra: { MessageSid: sid } });
    expect((await repeat.answer).status).toBe(200);
    expect((await world.sdk.messages.list({ number: BOB })).data).toHaveLength(3);
  });

  it("opts the sender out on Twilio's STOP and back in on START", async () => {
    const world = await started();
    await world.twilio.inbound({ from: BOB, to: LINE, body: 'stop please', extra: { OptOutType: 'STOP' } }).answer;
    expect((await world.sdk.contacts.retrieve(BOB)).contact).toMatchObject({ opt_out: true });
    await world.twilio.inbound({ from: BOB, to: LINE, body: 'START' }).answer;
    expect((await world.sdk.contacts.retrieve(BOB)).contact).toMatchObject({ opt_out: false });
  });

  it('refuses group messages and typing on a Twilio line, naming the carrier', async () => {
    const world = await started();
    const group = await world.t.call('POST', '/api/send-group-message', world.account, { numbers: [ALICE, BOB], content: 'hi all' });
    expect(group.status).toBe(400);
    expect(group.body).toMatchObject({
      error_code: 4000,
      error_message: `${LINE} is delivered by Twilio, which cannot carry group messages`,
    });
    const typing = await world.t.call('POST', '/api/send-typing-indicator', world.account, { number: ALICE, from_number: LINE });
    expect(typing.status).toBe(400);
    expect(typing.body).toMatchObject({
      error_code: 4000,
      error_message: `${LINE} is delivered by Twilio, which cannot carry typing indicators`,
    });
  });
});

describe('Twilio fields holding characters PostgreSQL refuses (NUL, half a surrogate pair)', () => {
  it('keeps an inbound message whose Body holds a NUL, the NUL shown as U+FFFD', async () => {
    const world = await started();
    const { sid, answer } = world.twilio.inbound({ from: BOB, to: LINE, body: 'before\u0000after' });
    expect((await answer).status).toBe(200);
    const [received] = (await world.sdk.messages.list({ number: BOB })).data ?? [];
    expect(received).toMatchObject({ content: 'before\uFFFDafter', from_number: BOB, status: 'RECEIVED' });
    expect((await world.t.store.messages.findByAnyHandle(sid))?.content).toBe('before\uFFFDafter');
  });

  it('keeps a message whose MessageSid holds a NUL once, under the sid with U+FFFD, a repeat adding none', async () => {
    const world = await started();
    const sid = 'SM0000000000000000000000000000000\u0000';
    for (let attempt = 0; attempt < 2; attempt++) {
      const { answer } = world.twilio.inbound({
        from: BOB,
        to: LINE,
        body: 'odd sid',
        extra: { MessageSid: sid, SmsSid: sid, SmsMessageSid: sid },
      });
      expect((await answer).status).toBe(200);
    }
    expect((await world.sdk.messages.list({ number: BOB })).data).toHaveLength(1);
    expect(await world.t.store.messages.findByAnyHandle('SM0000000000000000000000000000000\uFFFD')).toMatchObject({ content: 'odd sid' });
  });

  it('reads a From holding a NUL as the number around it, and keeps one with no number in it as unrouted', async () => {
    const world = await started();
    expect((await world.twilio.inbound({ from: `${BOB}\u0000`, to: LINE, body: 'still me' }).answer).status).toBe(200);
    expect((await world.sdk.messages.list({ number: BOB })).data?.map((m) => m.content)).toEqual(['still me']);
    const before = await world.t.store.unrouted.count();
    expect((await world.twilio.inbound({ from: 'who\u0000', to: LINE, body: 'who sent this' }).answer).status).toBe(200);
    expect(await world.t.store.unrouted.count()).toBe(before + 1);
    const [kept] = await world.t.store.unrouted.latest(1);
    expect(kept).toMatchObject({ fromNumber: 'who\uFFFD', toNumber: LINE, content: 'who sent this' });
  });

  it('records a status callback whose MessageSid and handle hold a NUL without failing, and applies a good one after it', async () => {
    const world = await started();
    const { handle, message } = await sendThroughTwilio(world);
    const odd = { ...message, sid: `${message.sid}\u0000`, form: new URLSearchParams(message.form) };
    odd.form.set('StatusCallback', `${message.form.get('StatusCallback')}%00`);
    expect((await world.twilio.callback(odd, 'delivered', { ErrorCode: '' })).status).toBe(204);
    expect((await world.twilio.callback(message, 'delivered')).status).toBe(204);
    expect(
      await until(
        () => statusOf(world, handle),
        (m) => m.status === 'DELIVERED',
      ),
    ).toMatchObject({ status: 'DELIVERED' });
  });
});

describe("an inbound MMS's MediaUrl", () => {
  it("is fetched only from Twilio's own host or a public address: another loopback server is never asked, the text still arrives", async () => {
    const world = await started();
    const asked: string[] = [];
    const elsewhere = await serveOnLoopback((request) => {
      asked.push(request.url);
      return new Response(PIXEL_PNG, { headers: { 'content-type': 'image/png' } });
    });
    try {
      const { answer } = world.twilio.inbound({
        from: BOB,
        to: LINE,
        body: 'see the picture',
        media: 2,
        extra: { MediaUrl0: `${elsewhere.url}/internal.png`, MediaUrl1: 'http://169.254.169.254/latest/meta-data/' },
      });
      expect((await answer).status).toBe(200);
      const received = ((await world.sdk.messages.list({ number: BOB })).data ?? []).reverse();
      expect(received.map((m) => [m.content, m.media_url])).toEqual([
        ['see the picture', null],
        ['', null],
      ]);
      expect(asked).toEqual([]);
      // Twilio's own host (TEXTRELAY_TWILIO_API_URL, a loopback fake here) still serves its media.
      await world.twilio.inbound({ from: BOB, to: LINE, body: 'from twilio', media: 1 }).answer;
      const [latest] = (await world.sdk.messages.list({ number: BOB })).data ?? [];
      expect(latest?.media_url).toMatch(new RegExp(`^${world.url}/media/`));
    } finally {
      await elsewhere.close();
    }
  });
});
