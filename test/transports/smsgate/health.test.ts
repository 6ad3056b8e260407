import { afterEach, describe, expect, it } from 'vitest';
import { SMSGATE_PASSWORD, SMSGATE_SIGNING_KEY } from '../../helpers/fake-smsgate.ts';
import { ALICE, BOB } from '../../helpers/fixtures.ts';
import { eventually } from '../../helpers/live.ts';
import { type SmsGateWorld, startSmsGateWorld } from '../../helpers/smsgate-world.ts';

/** lines.getState and /metrics show the SMSGate phone as this instance sees it: reachable, its last error, its counts. */

const LINE = '+14155550170';
const worlds: SmsGateWorld[] = [];
afterEach(async () => {
  await Promise.all(worlds.splice(0).map((world) => world.close()));
});

type CarrierState = { name: string; reachable: boolean | null; last_error: string | null; sends: number; events: number };

function metricOf(text: string, name: string, carrier: string): number | undefined {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${name}{carrier="${carrier}"} `));
  return line === undefined ? undefined : Number(line.split(' ')[1]);
}

async function started(retrySchedule?: string): Promise<SmsGateWorld> {
  const world = await startSmsGateWorld({ line: LINE, ...(retrySchedule === undefined ? {} : { retrySchedule }) });
  worlds.push(world);
  await world.start();
  return world;
}

async function carrierState(world: SmsGateWorld): Promise<{ sendblue_number: string; status: string; carrier: CarrierState }> {
  const answer = await world.sdk.lines.getState();
  return answer.data?.[0] as unknown as { sendblue_number: string; status: string; carrier: CarrierState };
}

const metrics = async (world: SmsGateWorld) => (await fetch(`${world.url}/metrics`)).text();

describe("an SMSGate line's carrier", () => {
  it('counts a send and its events in lines.getState and /metrics', async () => {
    const world = await started();
    expect(await carrierState(world)).toMatchObject({
      sendblue_number: LINE,
      status: 'ONLINE',
      carrier: { name: 'smsgate', reachable: true, last_error: null, sends: 0, events: 0 },
    });

    const sent = await world.sdk.messages.send({ number: ALICE, from_number: LINE, content: 'from the Android phone' });
    const handle = sent.message_handle as string;
    await eventually('the send to count', async () => ((await carrierState(world)).carrier.sends === 1 ? true : undefined));
    await world.phone.advance(handle, 'sent');
    await world.phone.advance(handle, 'delivered');
    await world.phone.settled();
    await eventually('the message to be delivered', async () =>
      (await world.sdk.messages.retrieve(handle)).data?.status === 'DELIVERED' ? true : undefined,
    );

    const state = await carrierState(world);
    expect(state).toMatchObject({ status: 'ONLINE', carrier: { name: 'smsgate', reachable: true, last_error: null, sends: 1 } });
    expect(state.carrier.events).toBe(2);
    const text = await metrics(world);
    expect(metricOf(text, 'textrelay_carrier_reachable', 'smsgate')).toBe(1);
    expect(metricOf(text, 'textrelay_carrier_sends_total', 'smsgate')).toBe(1);
    expect(metricOf(text, 'textrelay_carrier_events_total', 'smsgate')).toBe(2);

    // An SMS from a person is an event too.
    world.phone.receive({ from: BOB, text: 'hello back' });
    await world.phone.settled();
    await eventually('the inbound SMS to count', async () => ((await carrierState(world)).carrier.events === 3 ? true : undefined));
    expect(metricOf(await metrics(world), 'textrelay_carrier_events_total', 'smsgate')).toBe(3);
  });

  it('shows the phone not reachable, with its last error and no secret, once it stops answering; reachable again after a send', async () => {
    const world = await started('0.05,0.05');
    world.phone.control.down = true;
    const down = await world.sdk.messages.send({ number: ALICE, from_number: LINE, content: 'while the phone is away' });
    await eventually('the message to fail', async () =>
      (await world.sdk.messages.retrieve(down.message_handle as string)).data?.status === 'ERROR' ? true : undefined,
    );
    const state = await carrierState(world);
    expect(state).toMatchObject({ status: 'OFFLINE', carrier: { name: 'smsgate', reachable: false, sends: 0 } });
    // The phone's server drops every connection: the error is the connection's, as the HTTP client words it.
    expect(state.carrier.last_error).toMatch(/closed|reset|refused|socket/i);
    for (const secret of [SMSGATE_PASSWORD, SMSGATE_SIGNING_KEY]) expect(JSON.stringify(state)).not.toContain(secret);
    const text = await metrics(world);
    expect(metricOf(text, 'textrelay_carrier_reachable', 'smsgate')).toBe(0);
    expect(metricOf(text, 'textrelay_carrier_last_error_timestamp_seconds', 'smsgate')).toBeGreaterThan(0);

    world.phone.control.down = false;
    await world.sdk.messages.send({ number: BOB, from_number: LINE, content: 'the phone is back' });
    const back = await eventually('a send to go through', async () => {
      const now = await carrierState(world);
      return now.carrier.sends === 1 ? now : undefined;
    });
    expect(back).toMatchObject({ status: 'ONLINE', carrier: { reachable: true, sends: 1 } });
    expect(metricOf(await metrics(world), 'textrelay_carrier_reachable', 'smsgate')).toBe(1);
  });

  it('shows a send the phone refuses as its last error, the phone still reachable', async () => {
    const world = await started();
    world.phone.control.refuseSendsNext = { status: 400, message: 'phoneNumbers: invalid phone number' };
    const refused = await world.sdk.messages.send({ number: ALICE, from_number: LINE, content: 'refused by the phone' });
    const message = await eventually('the message to fail', async () => {
      const { data } = await world.sdk.messages.retrieve(refused.message_handle as string);
      return data?.status === 'ERROR' ? data : undefined;
    });
    expect(message).toMatchObject({ error_code: 10001, error_message: 'SMSGate HTTP 400: phoneNumbers: invalid phone number' });
    const state = await carrierState(world);
    expect(state.carrier).toMatchObject({ name: 'smsgate', reachable: true, sends: 0 });
    expect(state.carrier.last_error).toContain('phoneNumbers: invalid phone number');
    // The carrier's own last error (textrelay status, /metrics) is about reaching the phone: one refused message is not.
    expect(world.carriers[0]!.health()).toMatchObject({ reachable: true, lastError: null });
  });
});
