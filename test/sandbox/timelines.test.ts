import { describe, expect, it } from 'vitest';
import { CALLBACK_URL } from '../helpers/delivery.ts';
import { show } from '../helpers/fixtures.ts';
import { callbackStatuses, outboxFor, payloadsFor } from '../helpers/outbox.ts';
import { makeSandboxApp, plannedStepCount, type SandboxApp, STEP_MS } from './harness.ts';

/** A history entry as one readable line: status, who reported it, and whether (or why not) it was applied. */
function historyLine(event: { status: string; source: string; applied: boolean; implied: boolean; reason: string | null }): string {
  const outcome = event.applied ? (event.implied ? 'implied' : 'applied') : `kept (${event.reason})`;
  return `${event.status} ${event.source} ${outcome}`;
}

type Timeline = {
  number: string;
  /** The message's status after each of steps 1..4. */
  afterEachStep: string[];
  history: string[];
  wasDowngraded: boolean;
  errorCode: number | null;
  errorMessage: string | null;
};

const IMESSAGE_READ = ['QUEUED api applied', 'SENT sandbox applied', 'DELIVERED sandbox applied', 'READ sandbox applied'];

const TIMELINES: Record<string, Timeline> = {
  'any other number: delivered and read': {
    number: '+12125558899',
    afterEachStep: ['SENT', 'DELIVERED', 'READ', 'READ'],
    history: IMESSAGE_READ,
    wasDowngraded: false,
    errorCode: null,
    errorMessage: null,
  },
  '555-0100: delivered and read': {
    number: '+13125550100',
    afterEachStep: ['SENT', 'DELIVERED', 'READ', 'READ'],
    history: IMESSAGE_READ,
    wasDowngraded: false,
    errorCode: null,
    errorMessage: null,
  },
  '555-0101: delivered, never read': {
    number: '+13125550101',
    afterEachStep: ['SENT', 'DELIVERED', 'DELIVERED', 'DELIVERED'],
    history: IMESSAGE_READ.slice(0, 3),
    wasDowngraded: false,
    errorCode: null,
    errorMessage: null,
  },
  '555-0102: SMS, downgraded, stops at SENT': {
    number: '+13125550102',
    afterEachStep: ['SENT', 'SENT', 'SENT', 'SENT'],
    history: IMESSAGE_READ.slice(0, 2),
    wasDowngraded: true,
    errorCode: null,
    errorMessage: null,
  },
  '555-0103: fails with 10001': {
    number: '+13125550103',
    afterEachStep: ['ERROR', 'ERROR', 'ERROR', 'ERROR'],
    history: ['QUEUED api applied', 'ERROR sandbox applied'],
    wasDowngraded: false,
    errorCode: 10001,
    errorMessage: 'Message failed to send',
  },
  '555-0104: never confirmed, 10002 after three steps': {
    number: '+13125550104',
    afterEachStep: ['SENT', 'SENT', 'ERROR', 'ERROR'],
    history: ['QUEUED api applied', 'SENT sandbox applied', 'ERROR sandbox applied'],
    wasDowngraded: false,
    errorCode: 10002,
    errorMessage: 'Failed to resolve message status',
  },
  '555-0105: noisy, every report twice and DELIVERED before SENT': {
    number: '+13125550105',
    afterEachStep: ['DELIVERED', 'DELIVERED', 'READ', 'READ'],
    history: [
      'QUEUED api applied',
      'SENT sandbox implied',
      'DELIVERED sandbox applied',
      'DELIVERED sandbox kept (duplicate)',
      'SENT sandbox kept (stale)',
      'SENT sandbox kept (stale)',
      'READ sandbox applied',
      'READ sandbox kept (duplicate)',
    ],
    wasDowngraded: false,
    errorCode: null,
    errorMessage: null,
  },
};

async function sendTo(t: SandboxApp, number: string) {
  const account = await t.createAccount();
  const sent = await t.sendVia('/api/send-message', account, { number, content: 'hi there', status_callback: CALLBACK_URL });
  return { account, handle: sent.message_handle as string };
}

describe('sandbox test numbers: each full timeline, one step every TEXTRELAY_SANDBOX_STEP_MS', () => {
  for (const [name, timeline] of Object.entries(TIMELINES)) {
    it(name, async () => {
      const t = makeSandboxApp();
      const { account, handle } = await sendTo(t, timeline.number);

      // Handed over, but nothing happens before the first step is due.
      t.clock.advance(STEP_MS - 1);
      expect(await t.transport.runDue()).toBe(0);
      expect((await t.statusOf(account, handle)).status).toBe('QUEUED');
      t.clock.advance(1);

      const seen: string[] = [];
      for (let step = 0; step < timeline.afterEachStep.length; step++) {
        if (step > 0) t.clock.advance(STEP_MS);
        await t.transport.runDue();
        seen.push((await t.statusOf(account, handle)).status);
      }
      expect(seen).toEqual(timeline.afterEachStep);

      const final = await t.statusOf(account, handle);
      expect(final.history.map(historyLine), show(final.history)).toEqual(timeline.history);
      expect(final.was_downgraded).toBe(timeline.wasDowngraded);
      expect(final.error_code).toBe(timeline.errorCode);
      expect(final.error_message).toBe(timeline.errorMessage);

      // One callback per applied change, gap-free and in order, each carrying the message as it then was.
      const applied = timeline.history.filter((line) => !line.includes('kept')).map((line) => line.split(' ')[0]);
      expect(await callbackStatuses(t, handle)).toEqual(applied);
      const payloads = await payloadsFor(t, handle);
      expect((await outboxFor(t, handle)).every((row) => row.url === CALLBACK_URL && row.eventType === 'message.status')).toBe(true);
      expect(payloads.at(-1), show(payloads)).toMatchObject({
        message_handle: handle,
        status: timeline.afterEachStep.at(-1),
        error_code: timeline.errorCode,
        was_downgraded: timeline.wasDowngraded,
        number: timeline.number,
      });

      // The timeline is over: nothing left planned, and later steps change nothing.
      expect(await plannedStepCount(t)).toBe(0);
      expect(await t.steps(10)).toBe(0);
      expect(await callbackStatuses(t, handle)).toEqual(applied);
    });
  }

  it('the noisy number still calls back SENT, DELIVERED, READ once each, SENT before DELIVERED', async () => {
    const t = makeSandboxApp();
    const { handle } = await sendTo(t, '+13125550105');
    expect(await t.steps()).toBe(2);
    expect(await callbackStatuses(t, handle)).toEqual(['QUEUED', 'SENT', 'DELIVERED']);
    expect(await t.steps()).toBe(2);
    expect(await callbackStatuses(t, handle)).toEqual(['QUEUED', 'SENT', 'DELIVERED']);
    expect(await t.steps()).toBe(2);
    expect(await callbackStatuses(t, handle)).toEqual(['QUEUED', 'SENT', 'DELIVERED', 'READ']);
  });

  it('a step of 0 ms runs the whole timeline at once', async () => {
    const t = makeSandboxApp({ stepMs: 0 });
    const { account, handle } = await sendTo(t, '+13125550100');
    expect(await t.transport.runDue()).toBe(3);
    expect((await t.statusOf(account, handle)).status).toBe('READ');
  });
});

describe('group sends follow their most limiting member', () => {
  const cases: [string, string[], string, number | null, boolean][] = [
    ['any 555-0103 fails the group', ['+12125550100', '+12125550102', '+12125550103'], 'ERROR', 10001, false],
    ['else any 555-0104 leaves it unconfirmed', ['+12125550102', '+12125550104'], 'ERROR', 10002, false],
    ['else any 555-0102 makes it MMS, stopping at SENT', ['+12125550101', '+12125550102'], 'SENT', null, true],
    ['else any 555-0101 keeps it unread', ['+12125550100', '+12125550101', '+12125550105'], 'DELIVERED', null, false],
    ['else it is read', ['+12125550100', '+12125558899'], 'READ', null, false],
  ];
  for (const [name, numbers, finalStatus, errorCode, wasDowngraded] of cases) {
    it(name, async () => {
      const t = makeSandboxApp();
      const account = await t.createAccount();
      const sent = await t.sendVia('/api/send-group-message', account, { numbers, content: 'team', status_callback: CALLBACK_URL });
      await t.steps(5);
      const final = await t.statusOf(account, sent.message_handle);
      expect(final, show(final)).toMatchObject({
        status: finalStatus,
        error_code: errorCode,
        was_downgraded: wasDowngraded,
        group_id: sent.group_id,
      });
      expect((await callbackStatuses(t, sent.message_handle)).at(-1)).toBe(finalStatus);
    });
  }
});
