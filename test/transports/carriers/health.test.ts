import { afterEach, describe, expect, it } from 'vitest';
import { makeTestApp } from '../../helpers/app.ts';
import { type BlueBubblesRig, blueBubblesAccount, startBlueBubblesRig } from '../../helpers/bluebubbles.ts';
import { send } from '../../helpers/delivery.ts';
import { TWILIO_TOKEN } from '../../helpers/fake-twilio.ts';
import { ALICE, BOB } from '../../helpers/fixtures.ts';
import { eventually } from '../../helpers/live.ts';
import { startTwilioWorld, type TwilioWorld } from '../../helpers/twilio-world.ts';

/** lines.getState and /metrics show each carrier as this instance sees it: reachable, its last error, its counts. */

const LINE = '+14155550190';
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

type CarrierState = { name: string; reachable: boolean | null; last_error: string | null; sends: number; events: number };

function metricOf(text: string, name: string, carrier: string): number | undefined {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${name}{carrier="${carrier}"} `));
  return line === undefined ? undefined : Number(line.split(' ')[1]);
}

describe("a Twilio line's carrier", () => {
  async function twilioWorld(): Promise<TwilioWorld> {
    const world = await startTwilioWorld({ lines: [LINE] });
    closers.push(world.close);
    await world.start();
    return world;
  }

  async function carrierState(world: TwilioWorld): Promise<{ status: string; carrier: CarrierState }> {
    const answer = await world.sdk.lines.getState();
    return answer.data?.[0] as unknown as { status: string; carrier: CarrierState };
  }

  it('shows Twilio not reachable, with its last error and no secret, once it stops answering; reachable again after a send', async () => {
    const world = await twilioWorld();
    world.twilio.failWith503(3);
    const down = await world.sdk.messages.send({ number: ALICE, from_number: LINE, content: 'while Twilio is down' });
    await eventually('the message to fail', async () => {
      const { data } = await world.sdk.messages.retrieve(down.message_handle as string);
      return data?.status === 'ERROR' ? true : undefined;
    });
    const state = await carrierState(world);
    expect(state).toMatchObject({
      status: 'OFFLINE',
      carrier: { name: 'twilio', reachable: false, last_error: 'Twilio answered 503 (20500): Service Unavailable', sends: 0 },
    });
    expect(JSON.stringify(state)).not.toContain(TWILIO_TOKEN);
    const metrics = await (await fetch(`${world.url}/metrics`)).text();
    expect(metricOf(metrics, 'textrelay_carrier_reachable', 'twilio')).toBe(0);
    expect(metricOf(metrics, 'textrelay_carrier_last_error_timestamp_seconds', 'twilio')).toBeGreaterThan(0);

    await world.sdk.messages.send({ number: BOB, from_number: LINE, content: 'Twilio is back' });
    const back = await eventually('a send to go through', async () => {
      const now = await carrierState(world);
      return now.carrier.sends === 1 ? now : undefined;
    });
    expect(back).toMatchObject({ status: 'ONLINE', carrier: { reachable: true, sends: 1 } });
    expect(metricOf(await (await fetch(`${world.url}/metrics`)).text(), 'textrelay_carrier_reachable', 'twilio')).toBe(1);
  });
  it("keeps a recipient's handset failure as the line's last error, not the carrier's", async () => {
    const world = await twilioWorld();
    await world.sdk.messages.send({ number: ALICE, from_number: LINE, content: 'to a phone that is off' });
    const created = await eventually('Twilio to have the SMS', async () => world.twilio.messages[0]);
    expect((await world.twilio.callback(created, 'undelivered', { ErrorCode: '30003' })).status).toBe(204);
    const state = await carrierState(world);
    expect(state).toMatchObject({
      status: 'ONLINE',
      carrier: { reachable: true, last_error: 'Twilio 30003: Unreachable destination handset', events: 1 },
    });
    // textrelay status and /metrics show the carrier's own last error: it was reached, nothing failed there.
    expect(world.carriers[0]!.health().lastError).toBeNull();
    expect(metricOf(await (await fetch(`${world.url}/metrics`)).text(), 'textrelay_carrier_last_error_timestamp_seconds', 'twilio')).toBe(
      undefined,
    );
  });
});

describe("a BlueBubbles line's carrier", () => {
  it('counts sends and events, and shows the Mac not reachable with its last error, password removed', async () => {
    const t = makeTestApp({ transportName: 'bluebubbles' });
    const account = await blueBubblesAccount(t);
    const rig: BlueBubblesRig = await startBlueBubblesRig(t);
    closers.push(rig.close);
    await rig.carrier.start();
    const state = async () =>
      ((await t.call('GET', '/api/v2/lines/state', account)).body.data[0] as { status: string; carrier: CarrierState }) ?? undefined;
    const metric = async (name: string) => metricOf(await (await t.app.request('/metrics')).text(), name, 'bluebubbles');

    const sent = await send(t, account, { content: 'over iMessage' });
    rig.courier.enqueue(sent.message_handle);
    // The echo may bind the guid before the send's answer counts the send: wait for both.
    const guid = await eventually('the hand-over', async () => {
      const handedOver = (await t.store.messages.findByAnyHandle(sent.message_handle))?.transportHandle;
      return handedOver && (await state()).carrier.sends === 1 ? handedOver : undefined;
    });
    await rig.fake.world.settled();
    const before = await state();
    expect(before.carrier).toMatchObject({ sends: 1, reachable: true });
    const eventsBefore = before.carrier.events;
    expect(eventsBefore).toBeGreaterThanOrEqual(1);
    rig.fake.world.deliver(guid);
    await rig.fake.world.settled();
    expect((await state()).carrier.events).toBe(eventsBefore + 1);
    expect(await metric('textrelay_carrier_sends_total')).toBe(1);
    expect(await metric('textrelay_carrier_events_total')).toBe(eventsBefore + 1);
    expect(await metric('textrelay_carrier_reachable')).toBe(1);

    // A proxy in front of the Mac answering with the URL it could not route: the password rides in it.
    rig.fake.faults.push({ kind: 'proxyError' }, { kind: 'proxyError' }, { kind: 'proxyError' });
    const failed = await send(t, account, { content: 'behind a broken tunnel' });
    rig.courier.enqueue(failed.message_handle);
    const down = await eventually('the Mac to show unreachable', async () => {
      const now = await state();
      return now.carrier.reachable === false ? now : undefined;
    });
    expect(down).toMatchObject({ status: 'OFFLINE', carrier: { name: 'bluebubbles', sends: 1 } });
    expect(down.carrier.last_error).toMatch(/^BlueBubbles answered 502: Bad gateway for the BlueBubbles server\/api\/v1\/message\/text\?/);
    expect(down.carrier.last_error).toContain('[redacted]');
    expect(down.carrier.last_error).not.toContain(rig.fake.settings.password);
    expect(await metric('textrelay_carrier_reachable')).toBe(0);
    expect(await metric('textrelay_carrier_last_error_timestamp_seconds')).toBeGreaterThan(0);
  });
});
