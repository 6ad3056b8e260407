import { describe, expect, it } from 'vitest';
import { recordHandover } from '../../src/services/handover.ts';
import { receiveInbound } from '../../src/services/receive-inbound.ts';
import { recordStatus, type StatusReport } from '../../src/services/record-status.ts';
import { makeTestApp, type TestAccount, type TestApp } from '../helpers/app.ts';
import { accountRow, send, sendGroup } from '../helpers/delivery.ts';
import { ALICE, show } from '../helpers/fixtures.ts';
import { callbackStatuses, outboxFor, payloadsFor } from '../helpers/outbox.ts';

/** recordStatus: the one path by which a transport's status event changes a message. */

const SOURCE = 'test-transport';

function report(handle: string, status: StatusReport['status'], extra: Partial<StatusReport> = {}): StatusReport {
  return { handle, status, source: SOURCE, ...extra };
}

/** A message sent with a status callback, and a counter of the notifier's outbox signals. */
async function setUp() {
  const t = makeTestApp();
  const account = await t.createAccount();
  const signals = { outboxWritten: 0 };
  t.notifier.subscribe({ outboxWritten: () => (signals.outboxWritten += 1) });
  const handle = (await send(t, account)).message_handle;
  return { t, account, handle, signals };
}

async function statusOf(t: TestApp, handle: string) {
  return (await t.store.messages.findByAnyHandle(handle))!;
}

async function statusView(t: TestApp, account: TestAccount, handle: string) {
  const reply = await t.call('GET', `/api/status?handle=${handle}`, account);
  expect(reply.status, show(reply.body)).toBe(200);
  return reply.body;
}

/** The status callback fields of the spec's Events section. */
const CALLBACK_FIELDS = [
  'accountEmail',
  'content',
  'is_outbound',
  'media_url',
  'status',
  'error_code',
  'error_message',
  'message_handle',
  'date_sent',
  'date_updated',
  'from_number',
  'number',
  'to_number',
  'was_downgraded',
  'plan',
];

describe('recordStatus: waking the dispatcher', () => {
  it('wakes it once per applied change that queued callbacks, and not for a message nobody listens to', async () => {
    const { t, account, handle, signals } = await setUp();
    const quiet = (await send(t, account, { statusCallback: undefined })).message_handle;
    const before = signals.outboxWritten;
    expect(await recordStatus(t.deps, report(quiet, 'DELIVERED'))).toBe('applied');
    expect(signals.outboxWritten, 'no callback was queued').toBe(before);
    expect(await recordStatus(t.deps, report(handle, 'DELIVERED'))).toBe('applied');
    expect(await callbackStatuses(t, handle)).toEqual(['QUEUED', 'SENT', 'DELIVERED']);
    expect(signals.outboxWritten, 'two callbacks, one commit').toBe(before + 1);
  });
});

describe('recordStatus: order', () => {
  it('DELIVERED before SENT records SENT as implied, calls back SENT then DELIVERED, and the late SENT changes nothing', async () => {
    const { t, handle, signals } = await setUp();
    const before = signals.outboxWritten;
    t.clock.advance(1_000);
    expect(await recordStatus(t.deps, report(handle, 'DELIVERED'))).toBe('applied');
    expect(signals.outboxWritten).toBe(before + 1);
    t.clock.advance(1_000);
    expect(await recordStatus(t.deps, report(handle, 'SENT'))).toBe('not_applied');
    expect(signals.outboxWritten, 'nothing new to dispatch').toBe(before + 1);

    expect((await statusOf(t, handle)).status).toBe('DELIVERED');
    expect(await callbackStatuses(t, handle)).toEqual(['QUEUED', 'SENT', 'DELIVERED']);
    const history = (await t.store.messages.history(handle)).map((e) => [e.status, e.applied, e.implied, e.notAppliedReason]);
    expect(history, show(history)).toEqual([
      ['QUEUED', true, false, null],
      ['SENT', true, true, null],
      ['DELIVERED', true, false, null],
      ['SENT', false, false, 'stale'],
    ]);
  });

  it('ERROR after DELIVERED is kept in the history as stale and not applied', async () => {
    const { t, handle } = await setUp();
    await recordStatus(t.deps, report(handle, 'SENT'));
    await recordStatus(t.deps, report(handle, 'DELIVERED'));
    expect(await recordStatus(t.deps, report(handle, 'ERROR', { errorCode: 10001 }))).toBe('not_applied');
    const message = await statusOf(t, handle);
    expect([message.status, message.errorCode, message.errorMessage]).toEqual(['DELIVERED', null, null]);
    expect(await callbackStatuses(t, handle)).toEqual(['QUEUED', 'SENT', 'DELIVERED']);
    expect((await t.store.messages.history(handle)).at(-1)).toMatchObject({ status: 'ERROR', applied: false, notAppliedReason: 'stale' });
  });

  it('nothing moves a message out of ERROR or READ', async () => {
    const { t, account, handle } = await setUp();
    await recordStatus(t.deps, report(handle, 'ERROR', { errorCode: 10001 }));
    expect(await recordStatus(t.deps, report(handle, 'DELIVERED'))).toBe('not_applied');
    const read = (await send(t, account)).message_handle;
    await recordStatus(t.deps, report(read, 'READ'));
    expect(await recordStatus(t.deps, report(read, 'ERROR'))).toBe('not_applied');
    expect([(await statusOf(t, handle)).status, (await statusOf(t, read)).status]).toEqual(['ERROR', 'READ']);
    expect(await callbackStatuses(t, read)).toEqual(['QUEUED', 'SENT', 'DELIVERED', 'READ']);
    expect((await t.store.messages.history(read)).at(-1)).toMatchObject({ status: 'ERROR', applied: false, notAppliedReason: 'final' });
  });

  it('a status event for an inbound message is recorded but never applied', async () => {
    const { t, account } = await setUp();
    const inbound = await receiveInbound(t.deps, await accountRow(t, account), {
      from: ALICE,
      content: 'hi',
      mediaUrl: '',
      service: 'iMessage',
      source: SOURCE,
    });
    expect(await recordStatus(t.deps, report(inbound.message.handle, 'DELIVERED'))).toBe('not_applied');
    expect((await statusOf(t, inbound.message.handle)).status).toBe('RECEIVED');
    expect((await t.store.messages.history(inbound.message.handle)).at(-1)).toMatchObject({ applied: false, notAppliedReason: 'inbound' });
  });
});

describe('recordStatus: duplicates', () => {
  it('the same source event id twice is one event: duplicate_event and one history row', async () => {
    const { t, handle } = await setUp();
    expect(await recordStatus(t.deps, report(handle, 'SENT', { sourceEventId: 'evt-1' }))).toBe('applied');
    expect(await recordStatus(t.deps, report(handle, 'SENT', { sourceEventId: 'evt-1' }))).toBe('duplicate_event');
    // Even once the message moved on, the redelivered event is recognised by its id, not judged stale.
    await recordStatus(t.deps, report(handle, 'DELIVERED'));
    expect(await recordStatus(t.deps, report(handle, 'SENT', { sourceEventId: 'evt-1' }))).toBe('duplicate_event');
    const sentRows = (await t.store.messages.history(handle)).filter((event) => event.status === 'SENT');
    expect(sentRows, show(sentRows)).toHaveLength(1);
    expect(await callbackStatuses(t, handle)).toEqual(['QUEUED', 'SENT', 'DELIVERED']);
  });

  it('the same status again without an id is counted on its event in the history, with no second callback', async () => {
    const { t, handle } = await setUp();
    await recordStatus(t.deps, report(handle, 'SENT'));
    expect(await recordStatus(t.deps, report(handle, 'SENT'))).toBe('not_applied');
    expect(await recordStatus(t.deps, report(handle, 'SENT'))).toBe('not_applied');
    const history = await t.store.messages.history(handle);
    expect(history.map((event) => [event.status, event.applied, event.repeats])).toEqual([
      ['QUEUED', true, 0],
      ['SENT', true, 2],
    ]);
    expect(await callbackStatuses(t, handle)).toEqual(['QUEUED', 'SENT']);
  });

  it('ids are per reporter: another source may use the same event id', async () => {
    const { t, handle } = await setUp();
    await recordStatus(t.deps, report(handle, 'SENT', { sourceEventId: 'evt-1' }));
    expect(await recordStatus(t.deps, report(handle, 'DELIVERED', { source: 'other', sourceEventId: 'evt-1' }))).toBe('applied');
  });
});

describe('recordStatus: events before their handle is known', () => {
  it('keeps an event for an unknown handle and applies it when the hand-over stores that transport handle', async () => {
    const { t, handle, signals } = await setUp();
    expect(await recordStatus(t.deps, report('upstream-42', 'DELIVERED', { sourceEventId: 'up-1' }))).toBe('unknown_handle');
    expect(await recordStatus(t.deps, report('upstream-42', 'DELIVERED', { sourceEventId: 'up-1' }))).toBe('duplicate_event');
    expect(await recordStatus(t.deps, report('upstream-42', 'SENT'))).toBe('unknown_handle');
    expect(await callbackStatuses(t, handle)).toEqual(['QUEUED']);
    expect((await statusOf(t, handle)).status).toBe('QUEUED');

    const before = signals.outboxWritten;
    t.clock.advance(2_000);
    await recordHandover(t.deps, handle, { transportHandle: 'upstream-42' });

    const message = await statusOf(t, handle);
    expect([message.status, message.transportHandle, message.handedOverAt]).toEqual(['DELIVERED', 'upstream-42', t.clock.now()]);
    expect(await callbackStatuses(t, handle)).toEqual(['QUEUED', 'SENT', 'DELIVERED']);
    expect(signals.outboxWritten).toBe(before + 1);
    // Applied from the orphans, then gone from them: a second hand-over record applies nothing again.
    await recordHandover(t.deps, handle, { transportHandle: 'upstream-42' });
    expect(await callbackStatuses(t, handle)).toEqual(['QUEUED', 'SENT', 'DELIVERED']);
    // The kept event's id still identifies it after it was applied.
    expect(await recordStatus(t.deps, report('upstream-42', 'DELIVERED', { sourceEventId: 'up-1' }))).toBe('duplicate_event');
    // Later events find the message by the transport's handle.
    expect(await recordStatus(t.deps, report('upstream-42', 'READ'))).toBe('applied');
    expect((await statusOf(t, handle)).status).toBe('READ');
  });
});

describe('recordStatus: what is written on the message', () => {
  it('records was_downgraded and keeps it when later events do not say', async () => {
    const { t, handle } = await setUp();
    await recordStatus(t.deps, report(handle, 'SENT', { wasDowngraded: true }));
    expect((await statusOf(t, handle)).wasDowngraded).toBe(true);
    await recordStatus(t.deps, report(handle, 'DELIVERED'));
    expect((await statusOf(t, handle)).wasDowngraded).toBe(true);
    expect((await payloadsFor(t, handle)).map((p) => p.was_downgraded)).toEqual([false, true, true]);
  });

  it('ERROR without a code is 10001 with its text; 10002 without a message gets its text; a given message is kept', async () => {
    const { t, account, handle } = await setUp();
    await recordStatus(t.deps, report(handle, 'ERROR'));
    const unresolved = (await send(t, account)).message_handle;
    await recordStatus(t.deps, report(unresolved, 'ERROR', { errorCode: 10002 }));
    const explained = (await send(t, account)).message_handle;
    await recordStatus(t.deps, report(explained, 'ERROR', { errorCode: 4002, errorMessage: 'Blacklisted upstream' }));

    const failures = [];
    for (const h of [handle, unresolved, explained]) {
      const { errorCode, errorMessage } = await statusOf(t, h);
      failures.push([errorCode, errorMessage]);
    }
    expect(failures).toEqual([
      [10001, 'Message failed to send'],
      [10002, 'Failed to resolve message status'],
      [4002, 'Blacklisted upstream'],
    ]);
    const last = (await payloadsFor(t, unresolved)).at(-1);
    expect([last.status, last.error_code, last.error_message]).toEqual(['ERROR', 10002, 'Failed to resolve message status']);
  });

  it('writes no callback rows for a message sent without status_callback', async () => {
    const { t, account } = await setUp();
    const handle = (await send(t, account, { statusCallback: undefined })).message_handle;
    await recordStatus(t.deps, report(handle, 'DELIVERED'));
    await recordStatus(t.deps, report(handle, 'READ'));
    expect((await statusOf(t, handle)).status).toBe('READ');
    expect(await outboxFor(t, handle)).toEqual([]);
  });

  it('each callback carries the GET /api/status view of the message at that moment', async () => {
    const { t, account, handle } = await setUp();
    const steps: StatusReport[] = [report(handle, 'SENT', { wasDowngraded: false }), report(handle, 'DELIVERED'), report(handle, 'READ')];
    for (const step of [undefined, ...steps]) {
      t.clock.advance(1_500);
      if (step) await recordStatus(t.deps, step);
      const view = await statusView(t, account, handle);
      const payload = (await payloadsFor(t, handle)).at(-1);
      for (const field of CALLBACK_FIELDS) expect(payload, `${field} missing: ${show(payload)}`).toHaveProperty(field);
      const expected = Object.fromEntries(CALLBACK_FIELDS.map((field) => [field, view[field]]));
      // The callback table types was_downgraded boolean: not known yet reads as false.
      expected.was_downgraded = view.was_downgraded ?? false;
      expect(payload, show({ payload, view })).toMatchObject(expected);
      expect(payload.status).toMatch(/^[A-Z]+$/);
      expect([payload.media_url, payload.group_id]).toEqual(['', '']);
    }
    expect((await outboxFor(t, handle)).map((row) => [row.eventType, row.url, row.state])).toEqual(
      Array(4).fill(['message.status', 'https://hooks.example.com/status', 'pending']),
    );
    expect(new Set((await outboxFor(t, handle)).map((row) => row.webhookId)).size, 'one webhook-id per event').toBe(4);
  });

  it('a group send’s callbacks name its group', async () => {
    const { t, account } = await setUp();
    const sent = await sendGroup(t, account, { statusCallback: 'https://hooks.example.com/group' });
    await recordStatus(t.deps, report(sent.message_handle, 'SENT'));
    const view = await statusView(t, account, sent.message_handle);
    const payload = (await payloadsFor(t, sent.message_handle)).at(-1);
    expect(payload).toMatchObject({
      status: 'SENT',
      message_type: 'group',
      group_id: sent.group_id,
      number: view.number,
      from_number: view.from_number,
    });
  });
});
