import { setTimeout as sleep } from 'node:timers/promises';
import type { EventCursor, EventTable, Followed } from '../db/store.ts';
import { type EventView, toDeliveryAttemptView, toInboundView, toStatusEventView, toUnroutedView } from '../domain/event-views.ts';
import type { ServiceDeps } from './deps.ts';

/**
 * Following what a server writes (status events applied or not, inbound messages, unrouted
 * inbound messages, webhook attempts) from the database file alone: the reader may be another process.
 */

/** Rows read per table per step: a backlog (--since) is printed in steps, never held whole in memory. */
const BATCH = 500;

export type EventBatch = { events: EventView[]; cursor: EventCursor; more: boolean };

/** Where to start: after every event so far, or after the last one written before `since`. */
export async function startingCursor(deps: ServiceDeps, since?: number): Promise<EventCursor> {
  const { events } = deps.store;
  if (since === undefined) return events.latest();
  return {
    statusEvents: await events.lastBefore('statusEvents', since),
    messages: await events.lastBefore('messages', since),
    attempts: await events.lastBefore('attempts', since),
    unrouted: await events.lastBefore('unrouted', since),
  };
}

type Source = { table: EventTable; rows: Followed<{ at: number }>[]; views: EventView[] };

/**
 * The events written after `cursor`, oldest first, and the cursor after them. When a table has
 * more than a batch waiting, the others are read only up to the time its batch reached, so the
 * tables' events come out in time order across batches too.
 */
export async function readEventsAfter(deps: ServiceDeps, cursor: EventCursor): Promise<EventBatch> {
  const { events } = deps.store;
  // Reading up to the newest rowids seen first: a table's rows past them belong to the next read.
  const upto = await events.latest();
  const range = (table: EventTable) => ({ after: cursor[table], upto: upto[table], limit: BATCH });
  const statusEvents = await events.statusEvents(range('statusEvents'));
  const inbound = await events.inbound(range('messages'));
  const attempts = await events.attempts(range('attempts'));
  const unrouted = await events.unrouted(range('unrouted'));
  const sources: Source[] = [
    { table: 'statusEvents', rows: statusEvents, views: statusEvents.map(toStatusEventView) },
    { table: 'messages', rows: inbound, views: inbound.map(toInboundView) },
    { table: 'attempts', rows: attempts, views: attempts.map(toDeliveryAttemptView) },
    { table: 'unrouted', rows: unrouted, views: unrouted.map(toUnroutedView) },
  ];
  const full = sources.filter((source) => source.rows.length === BATCH);
  const horizon = Math.min(...full.map((source) => source.rows.at(-1)!.at));

  const next = { ...cursor };
  const taken: { at: number; view: EventView }[] = [];
  for (const { table, rows, views } of sources) {
    // A prefix in rowid order, so the cursor can stand after it.
    let count = 0;
    while (count < rows.length && rows[count]!.at <= horizon) {
      taken.push({ at: rows[count]!.at, view: views[count]! });
      count += 1;
    }
    const whole = count === rows.length && rows.length < BATCH;
    // A whole read stands at `upto`: the messages between that were outbound need no reading again.
    next[table] = whole ? upto[table] : count > 0 ? rows[count - 1]!.id : cursor[table];
  }
  // Stable: events of the same millisecond keep their table's order.
  taken.sort((a, b) => a.at - b.at);
  return { events: taken.map((entry) => entry.view), cursor: next, more: full.length > 0 };
}

export type Follow = {
  /** Where to start (startingCursor). */
  from: EventCursor;
  pollMs: number;
  signal: AbortSignal;
  onEvent: (event: EventView) => void;
};

/** Reads events as they are written until `signal` aborts; a backlog is read without pausing. */
export async function followEvents(deps: ServiceDeps, { from, pollMs, signal, onEvent }: Follow): Promise<void> {
  let cursor = from;
  while (!signal.aborted) {
    const batch = await readEventsAfter(deps, cursor);
    for (const event of batch.events) onEvent(event);
    cursor = batch.cursor;
    if (batch.more) continue;
    await sleep(pollMs, undefined, { signal }).catch((error: unknown) => {
      if (!signal.aborted) throw error;
    });
  }
}
