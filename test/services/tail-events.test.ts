import { describe, expect, it } from 'vitest';
import type { EventCursor } from '../../src/db/sqlite/queries/events.ts';
import type { EventView } from '../../src/domain/event-views.ts';
import { receiveFromTransport } from '../../src/services/receive-inbound.ts';
import { recordStatus } from '../../src/services/record-status.ts';
import { receiveSandboxInbound, requireAccountByEmail } from '../../src/services/sandbox.ts';
import { readEventsAfter, startingCursor } from '../../src/services/tail-events.ts';
import { makeTestApp } from '../helpers/app.ts';
import { UNOWNED_LINE } from '../helpers/fixtures.ts';

// The reads behind `textrelay tail`, in process: a backlog larger than one batch per table.

const MESSAGES = 1_100; // four batches of 500 status events, two of 500 messages
const START = Date.UTC(2026, 10, 23, 9, 0, 0);

/**
 * `count` inbound messages a second apart, each reported RECEIVED a second time under its own event id (not applied): two
 * status events per message, so a batch of status events spans half the time a batch of messages does.
 */
async function appWithInbound(count: number) {
  const t = makeTestApp();
  const account = await requireAccountByEmail(t.deps, (await t.createAccount()).email);
  const before = await startingCursor(t.deps);
  for (let i = 0; i < count; i += 1) {
    t.clock.set(START + i * 1_000);
    const message = await receiveSandboxInbound(t.deps, account, { number: '+12124567000', content: `message ${i}` });
    await recordStatus(t.deps, { handle: message.message_handle, status: 'RECEIVED', source: 'sandbox', sourceEventId: `again-${i}` });
  }
  return { t, before };
}

/** Reads until nothing is left, as the follower does, keeping how many reads it took. */
async function readAll(t: ReturnType<typeof makeTestApp>, from: EventCursor) {
  const events: EventView[] = [];
  let cursor = from;
  let reads = 0;
  for (;;) {
    const batch = await readEventsAfter(t.deps, cursor);
    reads += 1;
    events.push(...batch.events);
    cursor = batch.cursor;
    if (!batch.more) return { events, reads, cursor };
  }
}

describe('readEventsAfter', () => {
  it('reads a backlog of several batches per table once each, in time order across the tables', async () => {
    const { t, before } = await appWithInbound(MESSAGES);
    const { events, reads, cursor } = await readAll(t, before);

    expect(reads).toBeGreaterThanOrEqual(5);
    expect(events).toHaveLength(MESSAGES * 3);
    const times = events.map((event) => event.at);
    expect(times).toEqual([...times].sort());
    // Each message: its status events, then the message itself (same millisecond, table order).
    for (let i = 0; i < MESSAGES; i += 1) {
      const [applied, repeated, inbound] = events.slice(3 * i, 3 * i + 3);
      expect(applied).toMatchObject({ type: 'status', status: 'RECEIVED', applied: true });
      expect(repeated).toMatchObject({ type: 'status', status: 'RECEIVED', applied: false, not_applied_reason: expect.any(String) });
      expect(inbound).toMatchObject({
        type: 'inbound',
        content: `message ${i}`,
        message_handle: (applied as { message_handle: string }).message_handle,
      });
    }

    // Caught up: nothing more until something new is written, and then only that.
    expect((await readEventsAfter(t.deps, cursor)).events).toEqual([]);
    t.clock.set(START + MESSAGES * 1_000);
    await receiveSandboxInbound(t.deps, await requireAccountByEmail(t.deps, 'user1@example.com'), {
      number: '+12124567000',
      content: 'late',
    });
    expect((await readEventsAfter(t.deps, cursor)).events.map((event) => event.type === 'inbound' && event.content)).toEqual([
      false,
      'late',
    ]);
  });

  it('starts after the last event written before --since, or after everything without it', async () => {
    const { t } = await appWithInbound(10);
    const since = START + 7_000;
    const fromSince = (await readAll(t, await startingCursor(t.deps, since))).events;
    expect(fromSince.filter((event) => event.type === 'inbound').map((event) => event.type === 'inbound' && event.content)).toEqual([
      'message 7',
      'message 8',
      'message 9',
    ]);
    expect((await readAll(t, await startingCursor(t.deps))).events).toEqual([]);
  });

  it('shows an inbound message for a line no account owns as an unrouted event, with no account', async () => {
    const { t } = await appWithInbound(1);
    const cursor = await startingCursor(t.deps);
    t.clock.set(START + 5_000);
    await receiveFromTransport(t.deps, {
      from: '+12124567000',
      toNumber: UNOWNED_LINE,
      content: 'to nobody',
      mediaUrl: '',
      service: 'SMS',
      source: 'upstream',
    });
    expect((await readEventsAfter(t.deps, cursor)).events).toEqual([
      {
        type: 'unrouted',
        at: new Date(START + 5_000).toISOString(),
        account: null,
        from_number: '+12124567000',
        to_number: UNOWNED_LINE,
        group_id: null,
        content: 'to nobody',
        media_url: null,
        source: 'upstream',
      },
    ]);
    expect((await startingCursor(t.deps, START + 4_000)).unrouted, '--since reads it again').toBe(0);
  });
});
