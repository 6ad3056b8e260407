import { sql } from 'drizzle-orm';
import { beforeEach, describe, expect, it } from 'vitest';
import { outboxQueries } from '../../../src/db/postgres/queries/outbox.ts';
import type { FinishedDelivery, OutboxEntry } from '../../../src/db/sqlite/queries/delivery-rows.ts';
import type { Queries } from '../../../src/db/store.ts';
import { WAITS_FOR_EARLIER_CALLBACK } from '../../../src/domain/delivery-views.ts';
import {
  ACCOUNT,
  answering,
  heldTransaction,
  OTHER_ACCOUNT,
  seedAccounts,
  someoneWaitsForALock,
  useTwins,
} from '../../helpers/postgres-twins.ts';

type Outbox = Queries['outbox'];

const A = 'https://a.test/cb';
const B = 'https://b.test/cb';
const LEASE = 30_000;

function entry(webhookId: string, messageHandle: string, url = A, extra: Partial<OutboxEntry> = {}): OutboxEntry {
  return { webhookId, accountId: ACCOUNT, messageHandle, eventType: 'message.status', url, payload: `{"id":"${webhookId}"}`, ...extra };
}

function finished(
  row: { seq: number; accountId: string; messageHandle: string; url: string; leaseExpiresAt: number },
  outcome: FinishedDelivery['outcome'],
  at: number,
): FinishedDelivery {
  const failedAttempt = outcome.kind !== 'delivered';
  return {
    seq: row.seq,
    accountId: row.accountId,
    messageHandle: row.messageHandle,
    url: row.url,
    leaseExpiresAt: row.leaseExpiresAt,
    attempt: {
      attemptedAt: at,
      durationMs: 12,
      statusCode: failedAttempt ? 500 : 200,
      responseExcerpt: 'ok',
      error: failedAttempt ? 'HTTP 500' : null,
    },
    outcome,
  };
}

/** Every call of the outbox, in the order a dispatcher and an operator make them; answers what each gave back. */
async function story(outbox: Outbox): Promise<unknown[]> {
  const seen: unknown[] = [];
  const log = async () => seen.push(await outbox.listAll({ limit: 50, offset: 0 }), await outbox.countByState());
  await outbox.enqueue(entry('w1', 'm1'), 1000);
  await outbox.enqueue(entry('w2', 'm1'), 1001); // waits behind w1
  await outbox.enqueue(entry('w3', 'm1', B), 1002); // another URL goes at once
  await outbox.enqueue(entry('w4', 'm2', A, { accountId: OTHER_ACCOUNT, signingSecret: 'own' }), 1003);
  await outbox.enqueue(entry('w5', 'm3', A, { accountId: OTHER_ACCOUNT }), 1004);
  await log();

  const due = await outbox.dueCallbacks(2000, 'first', 10);
  seen.push(due, await outbox.dueCallbacks(2000, due[1]!, 10), await outbox.dueCallbacks(1002, 'first', 2));
  const w2 = await outbox.findByWebhookId('w2');
  seen.push(w2, await outbox.blockerOf(w2!), await outbox.findByWebhookId('nope'));

  const chosen = due.slice(0, 4); // w1, w3, w4, w5
  await outbox.lease(chosen, 2000 + LEASE, 2000);
  const claimed = await outbox.claimed(chosen, 2000 + LEASE);
  seen.push(claimed, await outbox.dueCallbacks(2000, 'first', 10));
  await log();

  const [c1, c3, c4, c5] = claimed;
  const next = await outbox.recordAttempts(
    [
      finished(c1!, { kind: 'delivered' }, 3000),
      finished(c3!, { kind: 'retry', nextAttemptAt: 9000 }, 3000),
      finished(c4!, { kind: 'failed' }, 3000),
      finished({ ...c5!, leaseExpiresAt: 1 }, { kind: 'delivered' }, 3000), // a lease that lapsed settles nothing
    ],
    3000,
  );
  seen.push(next);
  await outbox.startNext(next, 3000 + LEASE, 3000);
  await log();
  seen.push(await outbox.attemptsOf(claimed.map((row) => row.seq)), await outbox.attemptsOf([]));

  await outbox.expireLeases(2000 + LEASE); // w5's lease lapses, w2's (started at 3000) holds
  await log();
  seen.push(await outbox.replay(c4!.seq, 40_000), await outbox.replay(next[0]!.seq, 40_000));
  await outbox.release([{ seq: next[0]!.seq, leaseExpiresAt: 1 }], 41_000); // not our lease
  await outbox.release([{ seq: next[0]!.seq, leaseExpiresAt: 3000 + LEASE }], 41_000);
  await outbox.release([], 41_000);
  await log();

  // w2 delivered after the release: nothing waits behind it, and w1 lets nothing go twice.
  const again = await outbox.dueCallbacks(50_000, 'first', 10);
  await outbox.lease(again, 50_000 + LEASE, 50_000);
  const reclaimed = await outbox.claimed(again, 50_000 + LEASE);
  seen.push(
    reclaimed,
    await outbox.recordAttempts(
      reclaimed.map((row) => finished(row, row.webhookId === 'w4' ? { kind: 'failed' } : { kind: 'delivered' }, 51_000)),
      51_000,
    ),
  );
  await outbox.makeDue([], 51_000);
  await log();

  seen.push(
    await outbox.listForAccount(ACCOUNT, { limit: 2, offset: 1 }),
    await outbox.listForAccount(OTHER_ACCOUNT, { state: 'failed', limit: 10, offset: 0 }),
    await outbox.listAll({ state: 'pending', limit: 10, offset: 0 }),
    await outbox.failedSince(0),
    await outbox.failedSince(51_000, { accountId: OTHER_ACCOUNT, until: 51_000, limit: 1 }),
    await outbox.failedSince(0, { accountId: ACCOUNT }),
    await outbox.countFailedSince(0),
    await outbox.countFailedSince(0, { accountId: ACCOUNT, until: 10 }),
  );

  seen.push(await outbox.pruneFinished(52_000, 0, 2), await outbox.pruneFinished(52_000, 2, 2), await outbox.pruneFinished(52_000, 4, 2));
  await log();
  seen.push(await outbox.pruneFinished(1002, 0, 10));
  return seen;
}

describe('the PostgreSQL outbox', () => {
  const twins = useTwins();
  beforeEach(() => seedAccounts(twins));

  it('answers every call as the SQLite outbox does', async () => {
    const typed: Outbox = outboxQueries(twins.pg);
    const expected = await story(answering(twins.sqlite.outbox));
    expect(await story(typed)).toEqual(expected);
  });

  it('never leases a row twice when two dispatchers claim at once', async () => {
    const setup = outboxQueries(twins.pg);
    for (let message = 0; message < 12; message++) await setup.enqueue(entry(`w${message}`, `m${message}`), 1000 + message);
    const [first, second] = [heldTransaction(twins.connect(1)), heldTransaction(twins.connect(1))];
    const firstOutbox = outboxQueries(await first.tx);
    const secondOutbox = outboxQueries(await second.tx);

    // Interleaved: both read before either leases or commits.
    const firstDue = await firstOutbox.dueCallbacks(5000, 'first', 5);
    const secondDue = await secondOutbox.dueCallbacks(5000, 'first', 5);
    await firstOutbox.lease(firstDue, 5000 + LEASE, 5000);
    await secondOutbox.lease(secondDue, 5000 + LEASE, 5000);
    await Promise.all([first.commit(), second.commit()]);

    const firstSeqs = firstDue.map((row) => row.seq);
    const secondSeqs = secondDue.map((row) => row.seq);
    expect(firstSeqs).toEqual([1, 2, 3, 4, 5]);
    expect(secondSeqs).toEqual([6, 7, 8, 9, 10]);
    expect(await setup.countByState()).toMatchObject({ pending: 2, delivering: 10 });
  });

  it('shares out every row once among dispatchers claiming in a race', async () => {
    const setup = outboxQueries(twins.pg);
    for (let message = 0; message < 60; message++)
      await setup.enqueue(entry(`w${message}`, `m${message % 20}`, message % 3 ? A : B), 1000 + message);
    const dispatchers = [twins.connect(2), twins.connect(2), twins.connect(2)];
    const leasedBy = await Promise.all(
      dispatchers.map(async (db) => {
        const leased: number[] = [];
        for (let round = 0; round < 40; round++) {
          const now = 10_000 + round;
          const rows = await db.transaction(async (tx) => {
            const outbox = outboxQueries(tx as never);
            const due = await outbox.dueCallbacks(now, 'first', 3);
            await outbox.lease(due, now + LEASE, now);
            return outbox.claimed(due, now + LEASE);
          });
          leased.push(...rows.map((row) => row.seq));
          // Delivering them lets the next of each message and URL go.
          await db.transaction(async (tx) => {
            const outbox = outboxQueries(tx as never);
            await outbox.makeDue(
              await outbox.recordAttempts(
                rows.map((row) => finished(row, { kind: 'delivered' }, now)),
                now,
              ),
              now,
            );
          });
        }
        return leased;
      }),
    );
    const all = leasedBy.flat();
    expect(new Set(all).size).toBe(all.length);
    expect(all.sort((a, b) => a - b)).toEqual(Array.from({ length: 60 }, (_, index) => index + 1));
    expect(await setup.countByState()).toMatchObject({ delivered: 60 });
  });

  it('keeps a finished delivery that is replayed while the log is pruned', async () => {
    const outbox = outboxQueries(twins.pg);
    await outbox.enqueue(entry('w1', 'm1'), 1000);
    const [row] = await outbox.dueCallbacks(1000, 'first', 1);
    await outbox.lease([row!], 1000 + LEASE, 1000);
    const [claimed] = await outbox.claimed([row!], 1000 + LEASE);
    await outbox.recordAttempts([finished(claimed!, { kind: 'failed' }, 2000)], 2000);
    const operator = heldTransaction(twins.connect(1));
    expect(await outboxQueries(await operator.tx).replay(claimed!.seq, 3000)).toBe(true);
    const pruning = outboxQueries(twins.connect(1)).pruneFinished(2500, 0, 10);
    await someoneWaitsForALock(twins.pg);
    await operator.commit();
    expect(await pruning).toEqual({ pruned: 0, resumeAfter: null });
    expect((await outbox.findByWebhookId('w1'))?.state).toBe('pending');
  });

  describe("keeps a message's callbacks to one URL in line across instances", () => {
    async function leaseFirst(now = 2000) {
      const outbox = outboxQueries(twins.pg);
      await outbox.enqueue(entry('w1', 'm1'), 1000);
      const [row] = await outbox.dueCallbacks(now, 'first', 1);
      await outbox.lease([row!], now + LEASE, now);
      const [claimed] = await outbox.claimed([row!], now + LEASE);
      return claimed!;
    }

    it('lets go a callback queued while the one ahead was being finished (queued first)', async () => {
      const w1 = await leaseFirst();
      const event = heldTransaction(twins.connect(1));
      await outboxQueries(await event.tx).enqueue(entry('w2', 'm1'), 2500);
      const dispatcher = heldTransaction(twins.connect(1));
      const letGo = outboxQueries(await dispatcher.tx).recordAttempts([finished(w1, { kind: 'delivered' }, 3000)], 3000);
      await someoneWaitsForALock(twins.pg); // the finisher waits for the event's commit
      await event.commit();
      expect((await letGo).map((row) => row.webhookId)).toEqual(['w2']);
      await dispatcher.commit();
    });

    it('makes a callback due at once when the one ahead is being finished (finished first)', async () => {
      const w1 = await leaseFirst();
      const dispatcher = heldTransaction(twins.connect(1));
      expect(await outboxQueries(await dispatcher.tx).recordAttempts([finished(w1, { kind: 'delivered' }, 3000)], 3000)).toEqual([]);
      const event = heldTransaction(twins.connect(1));
      await outboxQueries(await event.tx).enqueue(entry('w2', 'm1'), 2500);
      await event.commit();
      await dispatcher.commit();
      const outbox = outboxQueries(twins.pg);
      expect((await outbox.findByWebhookId('w2'))?.nextAttemptAt).toBe(2500);
      expect((await outbox.dueCallbacks(4000, 'first', 5)).map((row) => row.webhookId)).toEqual(['w2']);
    });

    it('holds back a due callback while an earlier one is unfinished', async () => {
      await leaseFirst();
      const outbox = outboxQueries(twins.pg);
      // As the fallback above leaves it: due, though w1 is still out.
      await twins.pg.execute(
        sql`insert into webhook_deliveries (webhook_id, account_id, message_handle, event_type, url, payload, state, next_attempt_at, created_at, updated_at)
          values ('w2', ${ACCOUNT}, 'm1', 'message.status', ${A}, '{}', 'pending', 2500, 2500, 2500)`,
      );
      expect(await outbox.dueCallbacks(4000, 'first', 5)).toEqual([]);
    });

    it('lets the next go once when a replayed earlier callback and a later one finish at once', async () => {
      const outbox = outboxQueries(twins.pg);
      await outbox.enqueue(entry('w0', 'm1'), 900);
      const [w0] = await outbox.dueCallbacks(1000, 'first', 1);
      await outbox.lease([w0!], 1000 + LEASE, 1000);
      const [c0] = await outbox.claimed([w0!], 1000 + LEASE);
      await outbox.recordAttempts([finished(c0!, { kind: 'failed' }, 1500)], 1500);
      const w1 = await leaseFirst(); // w1, queued after w0 finished, goes at once
      await outbox.enqueue(entry('w2', 'm1'), 2100); // waits behind w1
      expect(await outbox.replay(c0!.seq, 2200)).toBe(true);
      const [again] = await outbox.dueCallbacks(2300, 'first', 5);
      await outbox.lease([again!], 2300 + LEASE, 2300);
      const [r0] = await outbox.claimed([again!], 2300 + LEASE);

      const earlierFinisher = heldTransaction(twins.connect(1));
      const laterFinisher = heldTransaction(twins.connect(1));
      const fromEarlier = await outboxQueries(await earlierFinisher.tx).recordAttempts([finished(r0!, { kind: 'delivered' }, 3000)], 3000);
      const fromLater = outboxQueries(await laterFinisher.tx).recordAttempts([finished(w1, { kind: 'delivered' }, 3000)], 3000);
      await someoneWaitsForALock(twins.pg);
      await earlierFinisher.commit();
      expect([...fromEarlier, ...(await fromLater)].map((row) => row.webhookId)).toEqual(['w2']);
      await laterFinisher.commit();
    });

    it('gives a row whose claimant died back to the queue, and the dead claimant settles nothing', async () => {
      const w1 = await leaseFirst();
      const outbox = outboxQueries(twins.pg);
      await outbox.enqueue(entry('w2', 'm1'), 2100);
      await outbox.expireLeases(2000 + LEASE);
      const [back] = await outbox.dueCallbacks(2000 + LEASE, 'first', 5);
      expect(back?.webhookId).toBe('w1');
      await outbox.lease([back!], 40_000 + LEASE, 40_000);
      expect(await outbox.recordAttempts([finished(w1, { kind: 'delivered' }, 41_000)], 41_000)).toEqual([]);
      expect((await outbox.findByWebhookId('w1'))?.state).toBe('delivering');
      expect((await outbox.findByWebhookId('w2'))?.nextAttemptAt).toBe(WAITS_FOR_EARLIER_CALLBACK);
    });
  });
});
