import { setTimeout as sleep } from 'node:timers/promises';
import { beforeEach, describe, expect, it } from 'vitest';
import type { PgDb } from '../../../src/db/postgres/db.ts';
import { accountEventQueries } from '../../../src/db/postgres/queries/account-events.ts';
import { messageQueries } from '../../../src/db/postgres/queries/messages.ts';
import { createPostgresStore } from '../../../src/db/postgres/store.ts';
import type { EventCursor } from '../../../src/db/sqlite/queries/events.ts';
import type { ServiceDeps } from '../../../src/services/deps.ts';
import { readEventsAfter as readStream, streamStart } from '../../../src/services/event-stream.ts';
import { readEventsAfter as readTail, startingCursor } from '../../../src/services/tail-events.ts';
import { ACCOUNT, heldTransaction, seedWorld, T0, useTwins } from '../../helpers/postgres-twins.ts';

/**
 * `tail` and the events stream read logs that several instances append to at once. A serial is
 * taken at insert and a transaction may commit after a later one: readers must neither skip the
 * late row nor see a row twice, whichever instance they read from.
 */

const twins = useTwins();
beforeEach(() => seedWorld(twins));

const depsOn = (db: PgDb) => ({ store: createPostgresStore(db) }) as ServiceDeps;

let events = 0;

/** Names of the status events a tail reads from `cursor`, and where it then stands. */
async function tailFrom(deps: ServiceDeps, cursor: EventCursor): Promise<{ seen: string[]; cursor: EventCursor }> {
  const seen: string[] = [];
  for (let batch = await readTail(deps, cursor); ; batch = await readTail(deps, batch.cursor)) {
    for (const event of batch.events) if (event.type === 'status') seen.push(event.error_message ?? '');
    if (!batch.more) return { seen, cursor: batch.cursor };
  }
}

function appendAccountEvent(db: PgDb, name: string): Promise<void> {
  return accountEventQueries(db).append({ accountId: ACCOUNT, type: 'message.updated', data: JSON.stringify({ name }), occurredAt: T0 });
}

/** Names of the account events a stream reads after `afterId`, and the id it then stands at. */
async function streamFrom(deps: ServiceDeps, afterId: number): Promise<{ seen: string[]; afterId: number }> {
  const seen: string[] = [];
  for (
    let batch = await readStream(deps, ACCOUNT, afterId, undefined);
    ;
    batch = await readStream(deps, ACCOUNT, batch.nextAfterId, undefined)
  ) {
    seen.push(...batch.events.map((event) => String(event.data.name)));
    if (!batch.more) return { seen, afterId: batch.nextAfterId };
  }
}

describe('with several writers', () => {
  it('a tail does not read past a status event whose transaction is still open, then reads it once', async () => {
    const deps = depsOn(twins.pg);
    const start = await startingCursor(deps);
    const early = heldTransaction(twins.connect(1));
    await recordNamed(await early.tx, 'early');
    await recordNamed(twins.pg, 'late');

    const before = await tailFrom(deps, start);
    expect(before.seen).toEqual([]);
    await early.commit();
    // A reader stands only behind transactions the whole server has finished, and other test files
    // write to other databases of the same server meanwhile: it reads on until it has both.
    const after = { seen: [] as string[], cursor: before.cursor };
    for (const until = Date.now() + 10_000; after.seen.length < 2 && Date.now() < until; await sleep(20)) {
      const next = await tailFrom(deps, after.cursor);
      after.seen.push(...next.seen);
      after.cursor = next.cursor;
    }
    expect(after.seen).toEqual(['early', 'late']);
    expect((await tailFrom(deps, after.cursor)).seen).toEqual([]);
  });

  it('a stream resumed from its last id on another instance loses and repeats no account event', async () => {
    const [one, other] = [depsOn(twins.connect(2)), depsOn(twins.connect(2))];
    const startId = await streamStart(one, ACCOUNT, undefined);
    const early = heldTransaction(twins.connect(1));
    await appendAccountEvent(await early.tx, 'early');
    // The account's next number waits for the commit of the one given out before it.
    const late = appendAccountEvent(twins.pg, 'late');

    const before = await streamFrom(one, startId);
    expect(before.seen).toEqual([]);
    await early.commit();
    await late;
    // The client reconnects to the other instance with Last-Event-ID.
    const resumed = await streamFrom(other, await streamStart(other, ACCOUNT, String(before.afterId)));
    expect(resumed.seen).toEqual(['early', 'late']);
    expect((await streamFrom(one, resumed.afterId)).seen).toEqual([]);
  });

  it('a tail and a stream, reading while two instances write at once, see every event exactly once', async () => {
    const instances = [twins.connect(4), twins.connect(4)];
    const reader = depsOn(twins.connect(2));
    let tailCursor = await startingCursor(reader);
    let streamId = await streamStart(reader, ACCOUNT, undefined);
    const tailed: string[] = [];
    const streamed: string[] = [];
    const written: string[] = [];
    let writing = true;

    const writers = Array.from({ length: 8 }, async (_, writer) => {
      const db = instances[writer % 2]!;
      for (let round = 0; round < 15; round++) {
        const names = [`${writer}.${round}.a`, `${writer}.${round}.b`];
        await db.transaction(async (tx) => {
          for (const name of names) {
            await recordNamed(tx as unknown as PgDb, name);
            await appendAccountEvent(tx as unknown as PgDb, name);
            // Some transactions take their serials early and commit late.
            await sleep(Math.random() < 0.3 ? 15 : 0);
          }
        });
        written.push(...names);
      }
    });
    const reading = (async () => {
      while (writing) {
        const tail = await tailFrom(reader, tailCursor);
        tailed.push(...tail.seen);
        tailCursor = tail.cursor;
        const stream = await streamFrom(reader, streamId);
        streamed.push(...stream.seen);
        streamId = stream.afterId;
        await sleep(2);
      }
    })();
    await Promise.all(writers);
    writing = false;
    await reading;
    tailed.push(...(await tailFrom(reader, tailCursor)).seen);
    streamed.push(...(await streamFrom(reader, streamId)).seen);

    expect(written).toHaveLength(8 * 15 * 2);
    expect([...tailed].sort()).toEqual([...written].sort());
    expect([...streamed].sort()).toEqual([...written].sort());
  }, 60_000);
});

/** A status event whose error message is `name`, so the tail's view shows which it is. */
async function recordNamed(db: PgDb, name: string): Promise<void> {
  events += 1;
  await messageQueries(db).insertStatusEvent({
    id: `evt_${events}`,
    messageHandle: 'h-1',
    status: 'SENT',
    errorCode: null,
    errorMessage: name,
    source: 'upstream',
    sourceEventId: null,
    applied: false,
    implied: false,
    notAppliedReason: 'stale',
    receivedAt: T0 + events,
  });
}
