import { asc, eq } from 'drizzle-orm';
import pino from 'pino';
import { beforeEach, describe, expect, it } from 'vitest';
import type { PgDb } from '../../../src/db/postgres/db.ts';
import { messageQueries } from '../../../src/db/postgres/queries/messages.ts';
import { webhookDeliveries } from '../../../src/db/postgres/schema.ts';
import { createPostgresStore } from '../../../src/db/postgres/store.ts';
import type { MessageStatus } from '../../../src/domain/status.ts';
import type { ServiceDeps } from '../../../src/services/deps.ts';
import { recordStatus, recordStatusInTransaction } from '../../../src/services/record-status.ts';
import { heldTransaction, message, seedWorld, someoneWaitsForALock, useTwins } from '../../helpers/postgres-twins.ts';

/**
 * Two instances recording statuses of the same message at once: the message row is locked before
 * the status is decided, so the second decides on what the first committed, and its callback is
 * queued (its serial taken) after the first's commit. Callbacks then go out in the order the
 * message moved, with no move from a status the message had already left.
 */

const twins = useTwins();
beforeEach(() => seedWorld(twins));

const CALLBACK = 'https://client.example.com/status';

function depsOn(db: PgDb): ServiceDeps {
  return {
    store: createPostgresStore(db),
    clock: { now: () => Date.now() },
    log: pino({ level: 'silent' }),
    notify: { messageQueued() {}, outboxWritten() {}, accountActivity() {} },
  } as unknown as ServiceDeps;
}

/** A sent message waiting for news, with a status callback. */
async function sentMessage(): Promise<string> {
  const row = await messageQueries(twins.pg).insert(message({ statusCallback: CALLBACK }));
  await messageQueries(twins.pg).updateStatus(row.id, {
    status: 'SENT',
    errorCode: null,
    errorMessage: null,
    wasDowngraded: false,
    dateUpdated: row.dateUpdated,
  });
  return row.handle;
}

/** The statuses the message's callbacks carry, in the order they are delivered (seq). */
async function callbackStatuses(handle: string): Promise<MessageStatus[]> {
  const rows = await twins.pg
    .select({ payload: webhookDeliveries.payload })
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.messageHandle, handle))
    .orderBy(asc(webhookDeliveries.seq));
  return rows.map((row) => (JSON.parse(row.payload) as { status: MessageStatus }).status);
}

async function statusOf(handle: string): Promise<MessageStatus | undefined> {
  return (await messageQueries(twins.pg).findByAnyHandle(handle))?.status;
}

describe('statuses of one message recorded by two instances at once', () => {
  it('are decided one after the other: the second sees the first’s status', async () => {
    const handle = await sentMessage();
    const first = heldTransaction(twins.connect(1));
    const firstDeps = { ...depsOn(twins.pg), store: createPostgresStore(await first.tx) };
    expect(await recordStatusInTransaction(firstDeps, { handle, status: 'DELIVERED', source: 'upstream' })).toBe('applied');

    const second = recordStatus(depsOn(twins.connect(1)), { handle, status: 'ERROR', errorCode: 5, source: 'upstream' });
    await someoneWaitsForALock(twins.pg);
    await first.commit();

    // A failure reported after delivery was confirmed is stale: without the lock it was applied over DELIVERED.
    expect(await second).toBe('not_applied');
    expect(await statusOf(handle)).toBe('DELIVERED');
    expect(await callbackStatuses(handle)).toEqual(['DELIVERED']);
  });

  it('queue their callbacks in the order the message moved, under many writers', async () => {
    const instances = [depsOn(twins.connect(4)), depsOn(twins.connect(4))];
    const handles = await Promise.all(Array.from({ length: 12 }, () => sentMessage()));
    const reports: MessageStatus[] = ['DELIVERED', 'ERROR', 'READ', 'DELIVERED', 'ERROR'];
    await Promise.all(
      handles.flatMap((handle) =>
        reports.map((status, index) =>
          recordStatus(instances[index % 2]!, { handle, status, errorCode: status === 'ERROR' ? 5 : null, source: 'upstream' }),
        ),
      ),
    );

    for (const handle of handles) {
      const statuses = await callbackStatuses(handle);
      // SENT, then either ERROR alone, or DELIVERED (implied or not) possibly followed by READ.
      expect([['ERROR'], ['DELIVERED'], ['DELIVERED', 'READ']]).toContainEqual(statuses);
      expect(await statusOf(handle)).toBe(statuses.at(-1));
    }
  }, 60_000);
});
