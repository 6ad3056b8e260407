import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type MessageStatus, PROGRESS_ORDER } from '../../src/domain/status.ts';
import { type RecordOutcome, recordStatus } from '../../src/services/record-status.ts';
import { makeTestApp, TEST_BACKEND } from '../helpers/app.ts';
import { send } from '../helpers/delivery.ts';
import { show } from '../helpers/fixtures.ts';
import { callbackStatuses } from '../helpers/outbox.ts';

/**
 * A transport may report a message's events in any order and any number of times. Whatever it
 * does, the message never moves backwards, ends at the highest status reached, and each applied
 * status produces exactly one callback, gap-free and in order.
 *
 * Invariant, stated exactly. Let F be the events fed, with exact duplicates (same source event id
 * seen before) removed. Then:
 * - progress timelines (QUEUED→SENT→DELIVERED→READ prefixes): the final status is the highest of F
 *   (QUEUED when F is empty) and the callbacks are every status from QUEUED up to it, once each;
 * - ERROR timelines (ERROR after QUEUED or after SENT): the final status is ERROR, and the
 *   callbacks are QUEUED, then SENT if and only if a SENT event came before the ERROR in F, then ERROR;
 * - history holds each event of F once: as a row, or counted on the `repeats` of an earlier row
 *   with its status and error when it came without an id (implied steps are extra rows marked implied);
 * - date_updated never decreases, even when our clock steps back.
 */

const SOURCE = 'property-transport';
const RANK: Record<string, number> = { QUEUED: 0, SENT: 1, DELIVERED: 2, READ: 3, ERROR: 4 };

type Copy = { status: MessageStatus; eventId: string | null; errorCode: number | null; clockStepMs: number };

const timeline: fc.Arbitrary<MessageStatus[]> = fc.oneof(
  fc.integer({ min: 0, max: 3 }).map((last) => PROGRESS_ORDER.slice(1, last + 1) as MessageStatus[]),
  fc.boolean().map((afterSent): MessageStatus[] => (afterSent ? ['SENT', 'ERROR'] : ['ERROR'])),
);

/** Each event of a timeline, 1 to 3 copies each, some carrying the event's id, some none; shuffled. */
const feed: fc.Arbitrary<{ timeline: MessageStatus[]; copies: Copy[] }> = fc
  .record({ timeline, transportReportsQueued: fc.boolean() })
  .chain(({ timeline: statuses, transportReportsQueued }) => {
    const events = transportReportsQueued ? (['QUEUED', ...statuses] as MessageStatus[]) : statuses;
    const copiesOfEvent = (status: MessageStatus, index: number) =>
      fc
        .array(
          fc.record({
            withId: fc.boolean(),
            errorCode: fc.constantFrom(null, 10001, 10002),
            clockStepMs: fc.integer({ min: -2_000, max: 5_000 }),
          }),
          { minLength: 1, maxLength: 3 },
        )
        .map((copies) =>
          copies.map(({ withId, errorCode, clockStepMs }) => ({
            status,
            eventId: withId ? `event-${index}` : null,
            errorCode: status === 'ERROR' ? errorCode : null,
            clockStepMs,
          })),
        );
    return fc
      .tuple(...events.map(copiesOfEvent))
      .map((perEvent) => perEvent.flat())
      .chain((copies) => fc.shuffledSubarray(copies, { minLength: copies.length, maxLength: copies.length }))
      .map((copies) => ({ timeline: statuses, copies }));
  });

describe('recordStatus over random orders and duplications of a message’s events', () => {
  it('never regresses, ends at the highest status, and calls back each applied status once, in order', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    let run = 0;

    await fc.assert(
      fc.asyncProperty(feed, async ({ timeline: statuses, copies }) => {
        run += 1;
        const sent = await send(t, account, { content: `run ${run}` });
        const handle = sent.message_handle;
        const seenIds = new Set<string>();
        const kept: Copy[] = [];
        let lastDateUpdated = Date.parse(sent.date_updated);
        const context = async () =>
          `timeline ${show(statuses)}\nfed ${show(copies)}\nhistory ${show(await t.store.messages.history(handle))}`;

        for (const copy of copies) {
          t.clock.advance(copy.clockStepMs);
          // Ids are per run so runs sharing this database never collide.
          const sourceEventId = copy.eventId === null ? null : `${handle}/${copy.eventId}`;
          const outcome: RecordOutcome = await recordStatus(t.deps, {
            handle,
            status: copy.status,
            errorCode: copy.errorCode,
            source: SOURCE,
            sourceEventId,
          });
          const duplicate = sourceEventId !== null && seenIds.has(sourceEventId);
          expect(outcome === 'duplicate_event', `${copy.status} ${sourceEventId} -> ${outcome}\n${await context()}`).toBe(duplicate);
          if (sourceEventId !== null) seenIds.add(sourceEventId);
          if (!duplicate) kept.push(copy);

          const message = (await t.store.messages.findByAnyHandle(handle))!;
          expect(message.dateUpdated, `date_updated went backwards\n${await context()}`).toBeGreaterThanOrEqual(lastDateUpdated);
          lastDateUpdated = message.dateUpdated;
        }

        const message = (await t.store.messages.findByAnyHandle(handle))!;
        const callbacks = await callbackStatuses(t, handle);
        const report = `final ${message.status}, callbacks ${show(callbacks)}\n${await context()}`;

        if (statuses.includes('ERROR')) {
          const firstError = kept.findIndex((copy) => copy.status === 'ERROR');
          const sentBeforeError = kept.slice(0, firstError).some((copy) => copy.status === 'SENT');
          expect(message.status, report).toBe('ERROR');
          expect(callbacks, report).toEqual(sentBeforeError ? ['QUEUED', 'SENT', 'ERROR'] : ['QUEUED', 'ERROR']);
          expect(message.errorCode, report).toBe(kept[firstError]!.errorCode ?? 10001);
        } else {
          const highest = Math.max(0, ...kept.map((copy) => RANK[copy.status]!));
          expect(message.status, report).toBe(PROGRESS_ORDER[highest]);
          expect(callbacks, report).toEqual(PROGRESS_ORDER.slice(0, highest + 1));
          expect(message.errorCode, report).toBeNull();
        }

        const history = await t.store.messages.history(handle);
        // A row and its repeats: each report of F once.
        const received = history
          .filter((event) => event.source === SOURCE && !event.implied)
          .flatMap((event) => Array<MessageStatus>(1 + event.repeats).fill(event.status));
        expect(received.sort(), report).toEqual(kept.map((copy) => copy.status).sort());
        // The applied history and the callbacks tell the same story.
        const applied = history.filter((event) => event.applied).map((event) => event.status);
        expect(
          [...applied].sort((a, b) => RANK[a]! - RANK[b]!),
          report,
        ).toEqual(callbacks);
        expect(new Set(applied).size, report).toBe(applied.length);
      }),
      // Each run's transactions go over the network on PostgreSQL: a quarter of the runs keeps its CI time in bounds.
      { numRuns: TEST_BACKEND === 'postgres' ? 100 : 400 },
    );
  });
});
