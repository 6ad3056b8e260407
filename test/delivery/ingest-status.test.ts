import { describe, expect, it } from 'vitest';
import { recordHandover } from '../../src/services/handover.ts';
import type { TestAccount } from '../helpers/app.ts';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { send } from '../helpers/delivery.ts';
import { show } from '../helpers/fixtures.ts';
import { INGEST_SECRET, postIngest, statusCallback } from '../helpers/ingest.ts';
import { callbackStatuses, payloadsFor } from '../helpers/outbox.ts';
import { rowCounts } from '../helpers/row-counts.ts';

/**
 * POST /webhooks/status: a transport's callback goes through the one recording path. Duplicates
 * and stale events answer 200 and change nothing; an unknown handle is kept (202) until the
 * hand-over tells us which message the transport means.
 */

async function setup() {
  const t = makeTestApp({ ingestSecrets: [INGEST_SECRET], transportName: 'upstream' });
  const account = await t.createAccount();
  return { t, account };
}

/** A message sent and handed over: the transport knows it as `transportHandle`. */
async function handedOver(t: TestApp, account: TestAccount, transportHandle: string): Promise<string> {
  const handle = (await send(t, account)).message_handle;
  await recordHandover(t.deps, handle, { transportHandle });
  return handle;
}

async function report(t: TestApp, transportHandle: string, status: string, extra: Record<string, unknown> = {}, webhookId?: string) {
  const headers: Record<string, string> = { 'svc-signing-secret': INGEST_SECRET };
  if (webhookId !== undefined) headers['webhook-id'] = webhookId;
  return postIngest(t, '/webhooks/status', statusCallback(transportHandle, status, extra), headers);
}

async function messageOf(t: TestApp, handle: string) {
  return (await t.store.messages.findByAnyHandle(handle))!;
}

describe('POST /webhooks/status', () => {
  it('applies a status to the message the transport knows by its handle, with its callback, and answers 200 OK', async () => {
    const { t, account } = await setup();
    const handle = await handedOver(t, account, 'up-1');
    t.clock.advance(1_000);

    const reply = await report(t, 'up-1', 'SENT', {}, 'msg_sent_1');
    expect(reply.status, show(reply.body)).toBe(200);
    expect(reply.body).toEqual({ status: 'OK' });

    expect((await messageOf(t, handle)).status).toBe('SENT');
    expect(await callbackStatuses(t, handle)).toEqual(['QUEUED', 'SENT']);
    // Our handle goes to our client, never the transport's.
    expect((await payloadsFor(t, handle))[1]).toMatchObject({
      message_handle: handle,
      status: 'SENT',
      date_updated: '2026-11-23T09:30:01.000Z',
    });
    const event = (await t.store.messages.history(handle)).find((row) => row.status === 'SENT')!;
    expect(event, show(event)).toMatchObject({ source: 'upstream', sourceEventId: 'msg_sent_1', applied: true, implied: false });
  });

  it('records an ERROR with the transport’s code and message, "FAILED" meaning the same', async () => {
    const { t, account } = await setup();
    const first = await handedOver(t, account, 'up-err-1');
    const second = await handedOver(t, account, 'up-err-2');

    expect((await report(t, 'up-err-1', 'ERROR', { error_code: 10002, error_message: 'Not confirmed' })).status).toBe(200);
    expect((await report(t, 'up-err-2', 'FAILED', { error_code: 10001 })).status).toBe(200);

    expect(await messageOf(t, first)).toMatchObject({ status: 'ERROR', errorCode: 10002, errorMessage: 'Not confirmed' });
    expect(await messageOf(t, second)).toMatchObject({ status: 'ERROR', errorCode: 10001 });
    expect((await payloadsFor(t, first)).at(-1)).toMatchObject({ status: 'ERROR', error_code: 10002, error_message: 'Not confirmed' });
  });

  it('keeps was_downgraded from the callback', async () => {
    const { t, account } = await setup();
    const handle = await handedOver(t, account, 'up-sms');
    await report(t, 'up-sms', 'SENT', { was_downgraded: true });
    expect(await messageOf(t, handle)).toMatchObject({ status: 'SENT', wasDowngraded: true });
    expect((await payloadsFor(t, handle)).at(-1)).toMatchObject({ was_downgraded: true });
  });

  it('answers 200 to a stale status and changes nothing but the history', async () => {
    const { t, account } = await setup();
    const handle = await handedOver(t, account, 'up-stale');
    await report(t, 'up-stale', 'SENT');
    await report(t, 'up-stale', 'DELIVERED');
    const outboxBefore = (await rowCounts(t)).webhook_deliveries;

    const late = await report(t, 'up-stale', 'SENT', {}, 'msg_late_sent');
    expect(late.status, show(late.body)).toBe(200);
    expect(late.body).toEqual({ status: 'OK' });
    expect((await messageOf(t, handle)).status).toBe('DELIVERED');
    expect((await rowCounts(t)).webhook_deliveries).toBe(outboxBefore);
    const kept = (await t.store.messages.history(handle)).filter((row) => row.sourceEventId === 'msg_late_sent');
    expect(kept, show(kept)).toMatchObject([{ status: 'SENT', applied: false }]);
  });

  it('records a redelivered callback (same webhook-id) once', async () => {
    const { t, account } = await setup();
    const handle = await handedOver(t, account, 'up-dup');
    const first = await report(t, 'up-dup', 'SENT', {}, 'msg_same');
    const before = await rowCounts(t);
    const again = await report(t, 'up-dup', 'SENT', {}, 'msg_same');

    expect([first.status, again.status]).toEqual([200, 200]);
    expect(again.body).toEqual({ status: 'OK' });
    expect(await rowCounts(t), 'the redelivery wrote rows').toEqual(before);
    expect((await t.store.messages.history(handle)).filter((row) => row.sourceEventId === 'msg_same')).toHaveLength(1);
    expect(await callbackStatuses(t, handle)).toEqual(['QUEUED', 'SENT']);
  });

  it('keeps one history row per event reported again without webhook-id, counting the repeats', async () => {
    const { t, account } = await setup();
    const handle = await handedOver(t, account, 'up-noisy-50');
    for (let i = 0; i < 50; i++) expect((await report(t, 'up-noisy-50', 'DELIVERED')).status).toBe(200);
    await report(t, 'up-noisy-50', 'SENT');
    await report(t, 'up-noisy-50', 'SENT');
    await report(t, 'up-noisy-50', 'ERROR', { error_code: 10002, error_message: 'Not confirmed' });
    await report(t, 'up-noisy-50', 'ERROR', { error_code: 10002, error_message: 'Not confirmed' });
    await report(t, 'up-noisy-50', 'ERROR', { error_code: 10002, error_message: 'Blocked' });

    const status = await t.call('GET', `/api/status?handle=${handle}&history=1`, account);
    expect(status.status, show(status.body)).toBe(200);
    const history = (status.body.history as any[]).map((e) => [e.status, e.applied, e.implied, e.error_message, e.repeats]);
    expect(history, show(history)).toEqual([
      ['QUEUED', true, false, null, 0],
      ['SENT', true, true, null, 0],
      ['DELIVERED', true, false, null, 49],
      ['SENT', false, false, null, 1],
      ['ERROR', false, false, 'Not confirmed', 1],
      ['ERROR', false, false, 'Blocked', 0],
    ]);
    expect(await callbackStatuses(t, handle)).toEqual(['QUEUED', 'SENT', 'DELIVERED']);
  });

  it('turns DELIVERED before SENT into SENT (implied) then DELIVERED; the late SENT is not applied', async () => {
    const { t, account } = await setup();
    const handle = await handedOver(t, account, 'up-noisy');

    expect((await report(t, 'up-noisy', 'DELIVERED', {}, 'msg_d')).status).toBe(200);
    expect(await callbackStatuses(t, handle)).toEqual(['QUEUED', 'SENT', 'DELIVERED']);
    expect((await report(t, 'up-noisy', 'SENT', {}, 'msg_s')).status).toBe(200);

    expect((await messageOf(t, handle)).status).toBe('DELIVERED');
    expect(await callbackStatuses(t, handle)).toEqual(['QUEUED', 'SENT', 'DELIVERED']);
    const history = (await t.store.messages.history(handle)).map((row) => [row.status, row.applied, row.implied, row.sourceEventId]);
    expect(history, show(history)).toEqual([
      ['QUEUED', true, false, null],
      ['SENT', true, true, null],
      ['DELIVERED', true, false, 'msg_d'],
      ['SENT', false, false, 'msg_s'],
    ]);
  });

  it('keeps a status for an unknown handle (202) and applies it once the hand-over stores that handle', async () => {
    const { t, account } = await setup();
    const handle = (await send(t, account)).message_handle;

    const early = await report(t, 'up-early', 'SENT', {}, 'msg_early');
    expect(early.status, show(early.body)).toBe(202);
    expect(early.body).toEqual({ status: 'OK' });
    expect((await messageOf(t, handle)).status).toBe('QUEUED');
    expect((await rowCounts(t)).orphan_status_events).toBe(1);

    // The same early event redelivered is still one kept event.
    expect((await report(t, 'up-early', 'SENT', {}, 'msg_early')).status).toBe(200);
    expect((await rowCounts(t)).orphan_status_events).toBe(1);

    await recordHandover(t.deps, handle, { transportHandle: 'up-early' });
    expect((await messageOf(t, handle)).status).toBe('SENT');
    expect(await callbackStatuses(t, handle)).toEqual(['QUEUED', 'SENT']);
    expect((await rowCounts(t)).orphan_status_events).toBe(0);

    // Known now: the next status applies directly.
    expect((await report(t, 'up-early', 'DELIVERED')).status).toBe(200);
    expect(await callbackStatuses(t, handle)).toEqual(['QUEUED', 'SENT', 'DELIVERED']);
  });

  it('answers 200 to the QUEUED callback an upstream sends first (the message is already QUEUED)', async () => {
    const { t, account } = await setup();
    const handle = await handedOver(t, account, 'up-q');
    const reply = await report(t, 'up-q', 'QUEUED');
    expect(reply.status, show(reply.body)).toBe(200);
    expect(await callbackStatuses(t, handle)).toEqual(['QUEUED']);
  });

  it.each<[string, unknown]>([
    ['no message_handle', { status: 'SENT' }],
    ['an empty message_handle', statusCallback('', 'SENT')],
    ['a lower-case status', statusCallback('up-x', 'sent')],
    ['an unknown status', statusCallback('up-x', 'BOUNCED')],
    ['RECEIVED (not a delivery status)', statusCallback('up-x', 'RECEIVED')],
    ['a non-integer error_code', statusCallback('up-x', 'ERROR', { error_code: 'oops' })],
    ['a string was_downgraded', statusCallback('up-x', 'SENT', { was_downgraded: 'yes' })],
    ['a number that is not E.164', statusCallback('up-x', 'SENT', { number: '4155550100' })],
    ['a JSON array', [statusCallback('up-x', 'SENT')]],
    ['malformed JSON', '{"message_handle": "up-x", "status": '],
  ])('refuses %s with 400 and writes nothing', async (_, body) => {
    const { t, account } = await setup();
    await handedOver(t, account, 'up-x');
    const before = await rowCounts(t);
    const reply = await postIngest(t, '/webhooks/status', body, { 'svc-signing-secret': INGEST_SECRET });
    expect(reply.status, show(reply.body)).toBe(400);
    expect(reply.body).toMatchObject({ status: 'ERROR', error_code: 4000 });
    expect(await rowCounts(t)).toEqual(before);
  });
});
