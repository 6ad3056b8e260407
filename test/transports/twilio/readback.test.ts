import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { carrierProblems } from '../../../src/services/carrier-problems.ts';
import { recordHandover } from '../../../src/services/handover.ts';
import { recordStatus } from '../../../src/services/record-status.ts';
import { READBACK_PER_PASS } from '../../../src/transports/carriers/unsettled-readback.ts';
import type { TwilioCarrier } from '../../../src/transports/twilio/carrier.ts';
import type { FakeTwilioMessage } from '../../helpers/fake-twilio.ts';
import { ALICE } from '../../helpers/fixtures.ts';
import { callbackStatuses } from '../../helpers/outbox.ts';
import { startTwilioWorld, type TwilioWorld } from '../../helpers/twilio-world.ts';

/**
 * Twilio never retries a status callback: what it said while textrelay was down is read back with
 * GET Messages/{sid}.json, at start and every TEXTRELAY_CARRIER_READBACK_S.
 */

const LINE = '+14155550190';

const worlds: TwilioWorld[] = [];
afterEach(async () => {
  await Promise.all(worlds.splice(0).map((world) => world.close()));
});

async function world(options: { readbackSeconds?: number } = {}): Promise<TwilioWorld> {
  const started = await startTwilioWorld({ lines: [LINE], ...options });
  worlds.push(started);
  return started;
}

function carrierOf(world: TwilioWorld): TwilioCarrier {
  return world.carriers[0] as TwilioCarrier;
}

/** A message Twilio took and said `sent` for, as textrelay recorded it before it stopped. */
async function sentThroughTwilio(world: TwilioWorld, content: string): Promise<{ handle: string; message: FakeTwilioMessage }> {
  const sent = await world.t.call('POST', '/api/send-message', world.account, {
    number: ALICE,
    from_number: LINE,
    content,
    status_callback: 'https://client.example.com/status',
  });
  expect(sent.status, JSON.stringify(sent.body)).toBe(202);
  const handle = sent.body.message_handle as string;
  const message: FakeTwilioMessage = {
    sid: `SM${randomBytes(16).toString('hex')}`,
    form: new URLSearchParams({
      From: LINE,
      To: ALICE,
      Body: content,
      StatusCallback: `${world.url}/webhooks/carriers/twilio/status?m=${encodeURIComponent(handle)}`,
    }),
    status: 'sent',
    errorCode: null,
    errorMessage: null,
    dateCreated: new Date(),
  };
  world.twilio.messages.push(message);
  await recordHandover(world.t.deps, handle, { transportHandle: message.sid });
  await recordStatus(world.t.deps, { handle, status: 'SENT', source: 'twilio', sourceEventId: `${message.sid}:sent` });
  return { handle, message };
}

async function statusOf(world: TwilioWorld, handle: string) {
  return (await world.t.store.messages.findByAnyHandle(handle))?.status;
}

async function until(read: () => Promise<unknown>, expected: unknown): Promise<void> {
  for (let waited = 0; waited < 10_000; waited += 20) {
    if ((await read()) === expected) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  expect(await read()).toBe(expected);
}

describe('Twilio read-back', () => {
  it('recovers at start a delivery whose callback came while textrelay was stopped, calling back once', async () => {
    const w = await world();
    const { handle, message } = await sentThroughTwilio(w, 'while you were out');
    w.twilio.settleSilently(message, 'delivered');
    expect(await statusOf(w, handle)).toBe('SENT');
    await w.start();
    await until(() => statusOf(w, handle), 'DELIVERED');
    expect(w.twilio.fetches).toContain(message.sid);
    // The callback Twilio sends late is the same event: nothing changes, nothing is called back twice.
    expect((await w.twilio.callback(message, 'delivered')).status).toBe(204);
    const history = await w.t.store.messages.history(handle);
    expect(history.filter((event) => event.applied).map((event) => [event.status, event.source])).toEqual([
      ['QUEUED', 'api'],
      ['SENT', 'twilio'],
      ['DELIVERED', 'twilio'],
    ]);
    expect(await callbackStatuses(w.t, handle)).toEqual(['QUEUED', 'SENT', 'DELIVERED']);
  });

  it('reads back every TEXTRELAY_CARRIER_READBACK_S, a failure with Twilio’s code and words', async () => {
    const w = await world({ readbackSeconds: 0.2 });
    await w.start();
    const sent = await w.t.call('POST', '/api/send-message', w.account, {
      number: ALICE,
      from_number: LINE,
      content: 'to a phone that is off',
    });
    const handle = sent.body.message_handle as string;
    await until(async () => (await w.t.store.messages.findByAnyHandle(handle))?.transportHandle !== null, true);
    const message = w.twilio.messages.find((m) => m.form.get('Body') === 'to a phone that is off')!;
    w.twilio.settleSilently(message, 'undelivered', { code: 30003, message: 'Unreachable destination handset' });
    await until(() => statusOf(w, handle), 'ERROR');
    expect(await w.t.store.messages.findByAnyHandle(handle)).toMatchObject({
      errorCode: 10001,
      errorMessage: 'Twilio 30003: Unreachable destination handset',
    });
  });

  it('leaves a message Twilio still has as sent alone, and reads no message that is settled or not handed over', async () => {
    const w = await world();
    const waiting = await sentThroughTwilio(w, 'still sent');
    const settled = await sentThroughTwilio(w, 'delivered already');
    await recordStatus(w.t.deps, {
      handle: settled.handle,
      status: 'DELIVERED',
      source: 'twilio',
      sourceEventId: `${settled.message.sid}:delivered`,
    });
    const queued = await w.t.call('POST', '/api/send-message', w.account, { number: ALICE, from_number: LINE, content: 'not handed over' });
    const before = await w.t.store.messages.history(waiting.handle);
    expect(await carrierOf(w).readBack()).toEqual({ read: 1, applied: 0, failed: 0 });
    expect(w.twilio.fetches).toEqual([waiting.message.sid]);
    expect(await w.t.store.messages.history(waiting.handle)).toEqual(before);
    expect(await statusOf(w, queued.body.message_handle)).toBe('QUEUED');
  });

  it('records a message Twilio cannot find as a failure of its own and goes on with the next one', async () => {
    const w = await world();
    const gone = await sentThroughTwilio(w, 'deleted at Twilio');
    const next = await sentThroughTwilio(w, 'delivered');
    w.twilio.messages.splice(w.twilio.messages.indexOf(gone.message), 1);
    w.twilio.settleSilently(next.message, 'delivered');
    expect(await carrierOf(w).readBack()).toEqual({ read: 1, applied: 1, failed: 1 });
    expect(await statusOf(w, next.handle)).toBe('DELIVERED');
    expect(await statusOf(w, gone.handle)).toBe('SENT');
    expect(carrierOf(w).health().lastError).toBe(
      `read-back of ${gone.message.sid}: Twilio answered 404 (20404): The requested resource was not found`,
    );
    const [problem] = await carrierProblems(w.t.deps);
    expect(problem).toMatchObject({ carrier: 'twilio', item: gone.message.sid, what: expect.stringContaining(gone.handle) });

    // Found again at Twilio: the next pass reads it and the problem is gone.
    w.twilio.messages.push(gone.message);
    w.twilio.settleSilently(gone.message, 'delivered');
    await carrierOf(w).readBack();
    expect(await statusOf(w, gone.handle)).toBe('DELIVERED');
    expect(await carrierProblems(w.t.deps)).toEqual([]);
  });

  it('stops a pass when Twilio does not answer, and the next pass resumes from that message', async () => {
    const w = await world();
    const first = await sentThroughTwilio(w, 'one');
    const second = await sentThroughTwilio(w, 'two');
    w.twilio.settleSilently(first.message, 'delivered');
    w.twilio.settleSilently(second.message, 'delivered');
    w.twilio.failFetchesWith503(1);
    expect(await carrierOf(w).readBack()).toMatchObject({ read: 0, applied: 0, failed: 0, stoppedBy: expect.stringContaining('503') });
    expect(carrierOf(w).health().reachable).toBe(false);
    expect(await carrierOf(w).readBack()).toEqual({ read: 2, applied: 2, failed: 0 });
    expect([await statusOf(w, first.handle), await statusOf(w, second.handle)]).toEqual(['DELIVERED', 'DELIVERED']);
  });

  it(`reads at most ${READBACK_PER_PASS} messages a pass, oldest first, the next pass going on from there`, async () => {
    const w = await world();
    const sids: string[] = [];
    for (let index = 0; index < READBACK_PER_PASS + 5; index++) sids.push((await sentThroughTwilio(w, `message ${index}`)).message.sid);
    expect(await carrierOf(w).readBack()).toEqual({ read: READBACK_PER_PASS, applied: 0, failed: 0 });
    expect(w.twilio.fetches).toEqual(sids.slice(0, READBACK_PER_PASS));
    expect(await carrierOf(w).readBack()).toEqual({ read: 5, applied: 0, failed: 0 });
    expect(w.twilio.fetches.slice(READBACK_PER_PASS)).toEqual(sids.slice(READBACK_PER_PASS));
    // Having reached the newest, the next pass starts again from the oldest.
    await carrierOf(w).readBack();
    expect(w.twilio.fetches.slice(READBACK_PER_PASS + 5, READBACK_PER_PASS + 7)).toEqual(sids.slice(0, 2));
  });
});
