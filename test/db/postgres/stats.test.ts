import { beforeEach, describe, expect, it } from 'vitest';
import { messageQueries } from '../../../src/db/postgres/queries/messages.ts';
import { statsQueries } from '../../../src/db/postgres/queries/stats.ts';
import type { Queries } from '../../../src/db/store.ts';
import { WAITS_FOR_EARLIER_CALLBACK } from '../../../src/domain/delivery-views.ts';
import { BOB, delivery, message, seedWorld, T0, useTwins } from '../../helpers/postgres-twins.ts';

const twins = useTwins();

let pg: Queries['stats'];

beforeEach(async () => {
  await seedWorld(twins);
  pg = statsQueries(twins.pg) satisfies Queries['stats'];
});

const A = 'https://hooks.example.com/a';
const B = 'https://hooks.example.com/B';

describe('the PostgreSQL stats', () => {
  it('count the same as SQLite when empty', async () => {
    expect(await pg.messagesByStatus()).toEqual(twins.sqlite.stats.messagesByStatus());
    expect(await pg.outboxDepth(T0)).toEqual(twins.sqlite.stats.outboxDepth(T0));
    expect(await pg.oldestDueAt(T0)).toEqual(twins.sqlite.stats.oldestDueAt(T0));
    expect(await pg.failingUrls(0)).toEqual(twins.sqlite.stats.failingUrls(0));
  });

  it('count messages by status, the outbox by state, and the failing URLs as SQLite does', async () => {
    for (const row of [message(), message({ status: 'DELIVERED' }), message({ number: BOB, contactId: 'con_bob', status: 'DELIVERED' })]) {
      twins.sqlite.messages.insert(row);
      await messageQueries(twins.pg).insert(row);
    }
    await twins.seed('webhook_deliveries', [
      delivery(1, { nextAttemptAt: T0 - 5 }),
      delivery(2, { nextAttemptAt: T0 + 5, attemptCount: 1, lastStatusCode: 500, updatedAt: T0 - 2, url: B }),
      delivery(3, { nextAttemptAt: WAITS_FOR_EARLIER_CALLBACK }),
      delivery(4, { state: 'delivering', attemptCount: 2, lastError: 'timeout', updatedAt: T0 - 1, url: B }),
      delivery(5, { state: 'failed', attemptCount: 3, lastStatusCode: 410, completedAt: T0 - 100, url: A }),
      delivery(6, { state: 'failed', attemptCount: 3, lastStatusCode: 503, completedAt: T0 - 50, url: A }),
      delivery(7, { state: 'failed', attemptCount: 3, lastError: 'refused', completedAt: T0 - 10, url: B }),
      delivery(8, { state: 'delivered', attemptCount: 1, completedAt: T0 - 10 }),
      delivery(9, { nextAttemptAt: T0 - 9, attemptCount: 1, lastStatusCode: 502, updatedAt: T0 - 9, url: A }),
    ]);
    expect(await pg.messagesByStatus()).toEqual(twins.sqlite.stats.messagesByStatus());
    for (const now of [T0 - 10, T0, T0 + 10]) {
      expect(await pg.outboxDepth(now)).toEqual(twins.sqlite.stats.outboxDepth(now));
      expect(await pg.oldestDueAt(now)).toEqual(twins.sqlite.stats.oldestDueAt(now));
    }
    for (const since of [0, T0 - 60, T0]) expect(await pg.failingUrls(since)).toEqual(twins.sqlite.stats.failingUrls(since));
    expect(await pg.failingUrls(0)).toContainEqual({
      url: B,
      kind: 'retrying',
      count: 2,
      lastFailureAt: T0 - 1,
      lastStatusCode: null,
      lastError: 'timeout',
    });
  });
});
