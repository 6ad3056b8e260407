import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAccount } from '../helpers/app.ts';
import { ALICE, BOB, CAROL, DAVE } from '../helpers/fixtures.ts';
import { eventually } from '../helpers/live.ts';
import { BB_LINE, type CarriersWorld, OTHER_TWILIO_LINE, startCarriersWorld, TWILIO_LINE } from './carriers-world.ts';

/**
 * One gateway, two carriers, three tenants: what one tenant does through a shared carrier never
 * shows in another's answers, and one carrier's events never change another carrier's messages.
 */

let world: CarriersWorld;
beforeAll(async () => {
  world = await startCarriersWorld();
}, 60_000);
afterAll(async () => {
  await world?.close();
});

type CarrierState = { name: string; reachable: boolean | null; last_error: string | null; sends: number; events: number };

async function carrierOf(account: TestAccount): Promise<CarrierState> {
  const answer = await world.sdkOf(account).lines.getState();
  return (answer.data?.[0] as unknown as { carrier: CarrierState } | undefined)?.carrier as CarrierState;
}

async function sendAs(account: TestAccount, line: string, number: string, content: string): Promise<string> {
  return (await world.sdkOf(account).messages.send({ number, from_number: line, content })).message_handle as string;
}

async function statusOf(handle: string) {
  return world.t.store.messages.findByAnyHandle(handle);
}

describe('lines.getState of a carrier shared by several accounts', () => {
  it("shows the carrier's reachability to all, but each account only its own last error, sends and events", async () => {
    world.twilio.optedOut.add(DAVE);
    const refused = await sendAs(world.sms, TWILIO_LINE, DAVE, 'to someone who said STOP');
    await eventually('the refusal', async () => ((await statusOf(refused))?.status === 'ERROR' ? true : undefined));
    const delivered = await sendAs(world.sms, TWILIO_LINE, ALICE, 'to someone who did not');
    const row = await world.handedOver(delivered);
    const message = world.twilio.messages.find((candidate) => candidate.sid === row.transportHandle)!;
    expect((await world.twilio.callback(message, 'delivered')).status).toBe(204);

    const own = await carrierOf(world.sms);
    expect(own).toMatchObject({ name: 'twilio', reachable: true, sends: 1, events: 1 });
    expect(own.last_error).toContain('21610');

    const other = await carrierOf(world.otherSms);
    expect(other).toEqual({ name: 'twilio', reachable: true, last_error: null, sends: 0, events: 0 });
  });
});

describe('a carrier event names a message of another carrier', () => {
  it("is not applied when BlueBubbles reports a Twilio message's sid or handle as failed", async () => {
    const handle = await sendAs(world.sms, TWILIO_LINE, BOB, 'over SMS');
    const row = await world.handedOver(handle);
    const before = row.status;
    for (const guid of [row.transportHandle!, handle]) {
      const forged = world.mac.world.store({ guid, chatGuid: `iMessage;-;${BOB}`, text: 'over SMS', isFromMe: true, error: 22 });
      world.mac.world.push('message-send-error', world.mac.world.view(forged));
    }
    await world.mac.world.settled();
    expect(world.mac.world.pushed.filter((push) => push.type === 'message-send-error').every((push) => push.delivered)).toBe(true);
    expect(await statusOf(handle)).toMatchObject({ status: before, errorCode: null });
  });

  it("is not applied when a Twilio-signed callback names a BlueBubbles message's guid or handle", async () => {
    const handle = await sendAs(world.imessage, BB_LINE, CAROL, 'over iMessage');
    const row = await world.handedOver(handle);
    await eventually('SENT', async () => ((await statusOf(handle))?.status === 'SENT' ? true : undefined));
    const callback = `${world.url}/webhooks/carriers/twilio/status`;
    for (const [sid, query] of [
      [row.transportHandle!, ''],
      ['SM00000000000000000000000000000bad', `?m=${encodeURIComponent(handle)}`],
    ] as const) {
      const forged = {
        sid,
        status: 'sent',
        form: new URLSearchParams({ StatusCallback: `${callback}${query}`, From: TWILIO_LINE, To: CAROL }),
        errorCode: null,
        errorMessage: null,
        dateCreated: new Date(),
      };
      expect((await world.twilio.callback(forged, 'undelivered', { ErrorCode: '30003' })).status).toBe(204);
    }
    expect(await statusOf(handle)).toMatchObject({ status: 'SENT', errorCode: null });
    const history = await world.sdkOf(world.imessage).messages.retrieve(handle);
    expect(history.data?.status).toBe('SENT');
  });

  it("is not applied when a Twilio callback names another line's message", async () => {
    const handle = await sendAs(world.otherSms, OTHER_TWILIO_LINE, ALICE, 'from the other line');
    const row = await world.handedOver(handle);
    const before = row.status;
    const message = world.twilio.messages.find((candidate) => candidate.sid === row.transportHandle)!;
    const claimed = { ...message, form: new URLSearchParams(message.form) };
    claimed.form.set('From', TWILIO_LINE);
    expect((await world.twilio.callback(claimed, 'undelivered', { ErrorCode: '30003' })).status).toBe(204);
    expect(await statusOf(handle)).toMatchObject({ status: before, errorCode: null });
    // The same callback as Twilio sends it, naming the message's own line, applies.
    expect((await world.twilio.callback(message, 'delivered')).status).toBe(204);
    expect(await statusOf(handle)).toMatchObject({ status: 'DELIVERED' });
  });
});
