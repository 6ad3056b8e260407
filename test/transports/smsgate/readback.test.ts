import { afterEach, describe, expect, it } from 'vitest';
import { expectCallbacksOnce } from '../../helpers/callbacks.ts';
import { BOB } from '../../helpers/fixtures.ts';
import { eventually } from '../../helpers/live.ts';
import {
  appliedStatuses,
  callbacksUpTo,
  receivedWebhooks,
  SMSGATE_LINE,
  type SmsGateSdkWorld,
  sentToPhone,
  startSmsGateSdkWorld,
  statusOf,
} from '../../helpers/smsgate-sdk.ts';

/**
 * The phone retries a webhook for hours, then drops it: what textrelay never heard is read back
 * with GET /messages/{id} for its unsettled messages and GET /inbox for SMS, at start and every
 * TEXTRELAY_CARRIER_READBACK_S (here each pass is run by the test).
 */

const worlds: SmsGateSdkWorld[] = [];
afterEach(async () => {
  await Promise.all(worlds.splice(0).map((world) => world.closeAll()));
});

type ReadBack = { readBack(): Promise<void> };

/** A started world whose start pass has run (it only sets the inbox mark), with its SMSGate carrier. */
async function world(): Promise<{ w: SmsGateSdkWorld; carrier: ReadBack }> {
  const w = await startSmsGateSdkWorld({ line: SMSGATE_LINE, readbackSeconds: 3600 });
  worlds.push(w);
  await eventually(
    'the start pass to set the inbox mark',
    async () => (await w.t.store.carrierState.get('smsgate', 'inbox_read_until')) ?? undefined,
    10_000,
  );
  const carrier = w.carriers.find((c) => c.name === 'smsgate') as unknown as ReadBack;
  return { w, carrier };
}

/** Each message's applied statuses, and the receive webhooks of `text`: what a pass that changes nothing leaves alone. */
async function snapshot(w: SmsGateSdkWorld, handles: string[], text: string) {
  return {
    histories: await Promise.all(handles.map((handle) => appliedStatuses(w, handle))),
    callbacks: w.receiver.received.length,
    inbound: receivedWebhooks(w, text).length,
  };
}

describe('SMSGate read-back of what the webhooks lost', () => {
  it('applies the states of unsettled messages and an SMS only the inbox has, once; a second pass and the late webhooks change nothing', async () => {
    const { w, carrier } = await world();
    const sent = await sentToPhone(w, 'only sent');
    const delivered = await sentToPhone(w, 'delivered');
    const failed = await sentToPhone(w, 'failed');
    // Every webhook from here on is lost to textrelay, for now.
    const flush = w.phone.holdWebhooks();
    await w.phone.advance(sent.handle, 'sent');
    await w.phone.advance(delivered.handle, 'sent');
    await w.phone.advance(delivered.handle, 'delivered', { parts: 2 });
    await w.phone.advance(failed.handle, 'failed', { reason: 'Send result: RESULT_ERROR_NO_SERVICE' });
    w.phone.receive({ from: BOB, text: 'written while the webhooks were lost' });
    const handles = [sent.handle, delivered.handle, failed.handle];
    for (const handle of handles) expect((await statusOf(w, handle)).status).toBe('QUEUED');
    expect((await w.sdk.messages.list({ number: BOB })).data).toEqual([]);

    await carrier.readBack();
    expect((await statusOf(w, sent.handle)).status).toBe('SENT');
    expect((await statusOf(w, delivered.handle)).status).toBe('DELIVERED');
    expect(await statusOf(w, failed.handle)).toMatchObject({
      status: 'ERROR',
      error_code: 10001,
      error_message: 'SMSGate: Send result: RESULT_ERROR_NO_SERVICE',
    });
    await callbacksUpTo(w, failed.handle, 'ERROR');
    await eventually(
      'the missed SMS at the receive webhook',
      async () => (receivedWebhooks(w, 'written while the webhooks were lost').length > 0 ? true : undefined),
      10_000,
    );
    const [inbound] = receivedWebhooks(w, 'written while the webhooks were lost');
    expect(inbound!.json).toMatchObject({ from_number: BOB, to_number: SMSGATE_LINE, is_outbound: false });
    expect((await w.sdk.messages.list({ number: BOB })).data).toHaveLength(1);
    await callbacksUpTo(w, delivered.handle, 'DELIVERED');
    const after = await snapshot(w, handles, 'written while the webhooks were lost');
    expect(after.histories).toEqual([
      ['QUEUED', 'SENT'],
      ['QUEUED', 'SENT', 'DELIVERED'],
      ['QUEUED', 'ERROR'],
    ]);

    await carrier.readBack();
    // The phone delivers the webhooks at last: the same events, recorded once already.
    await flush();
    await w.phone.settled();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await snapshot(w, handles, 'written while the webhooks were lost')).toEqual(after);
    expect((await w.sdk.messages.list({ number: BOB })).data).toHaveLength(1);
    expectCallbacksOnce(w.receiver, [sent.handle], ['QUEUED', 'SENT']);
    expectCallbacksOnce(w.receiver, [delivered.handle], ['QUEUED', 'SENT', 'DELIVERED']);
    expectCallbacksOnce(w.receiver, [failed.handle], ['QUEUED', 'ERROR']);
  });

  it('stops a pass while the phone is down, losing nothing, and the next pass picks everything up', async () => {
    const { w, carrier } = await world();
    const { handle } = await sentToPhone(w, 'while the phone was away');
    const flush = w.phone.holdWebhooks();
    await w.phone.advance(handle, 'delivered');
    w.phone.receive({ from: BOB, text: 'sent to a phone off the network' });
    w.phone.control.down = true;
    await carrier.readBack().catch(() => undefined);
    expect((await statusOf(w, handle)).status).toBe('QUEUED');
    expect((await w.sdk.messages.list({ number: BOB })).data).toEqual([]);
    expect((await w.sdk.lines.getState()).data?.[0]).toMatchObject({ carrier: { name: 'smsgate', reachable: false } });

    w.phone.control.down = false;
    await carrier.readBack();
    expect((await statusOf(w, handle)).status).toBe('DELIVERED');
    await eventually(
      'the SMS at the receive webhook',
      async () => (receivedWebhooks(w, 'sent to a phone off the network').length > 0 ? true : undefined),
      10_000,
    );
    await callbacksUpTo(w, handle, 'DELIVERED');
    await flush();
    await w.phone.settled();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receivedWebhooks(w, 'sent to a phone off the network')).toHaveLength(1);
    expect((await w.sdk.messages.list({ number: BOB })).data).toHaveLength(1);
    expectCallbacksOnce(w.receiver, [handle], ['QUEUED', 'SENT', 'DELIVERED']);
  });
});
