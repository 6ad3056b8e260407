import { beforeEach, describe, expect, it } from 'vitest';
import { accountEventQueries } from '../../../src/db/postgres/queries/account-events.ts';
import type { Queries } from '../../../src/db/store.ts';
import { ACCOUNT, answering, OTHER_ACCOUNT, seedAccounts, useTwins } from '../../helpers/postgres-twins.ts';

async function story(events: Queries['accountEvents']): Promise<unknown[]> {
  const seen: unknown[] = [await events.latestId(ACCOUNT)];
  for (let index = 1; index <= 7; index++)
    await events.append({
      accountId: index % 3 ? ACCOUNT : OTHER_ACCOUNT,
      type: 'message.status',
      data: `{"n":${index}}`,
      occurredAt: index * 100,
    });
  seen.push(
    await events.latestId(ACCOUNT),
    await events.latestId(OTHER_ACCOUNT),
    await events.after(ACCOUNT, 0, 10),
    await events.after(ACCOUNT, 2, 2),
    // Two at a time: the walk resumes after the last row read, and ends at the first row it keeps.
    await events.pruneOccurredBy(400, 0, 2),
    await events.pruneOccurredBy(400, 2, 2),
    await events.pruneOccurredBy(400, 4, 2),
    await events.after(ACCOUNT, 0, 10),
    await events.pruneOccurredBy(10_000, 0, 10),
    await events.latestId(ACCOUNT),
  );
  // An emptied log numbers on from where it was: a kept Last-Event-ID never stands after new events.
  await events.append({ accountId: ACCOUNT, type: 'message.status', data: '{"n":8}', occurredAt: 800 });
  seen.push(await events.after(ACCOUNT, 4, 10), await events.latestId(ACCOUNT));
  return seen;
}

describe('the PostgreSQL account event log', () => {
  const twins = useTwins();
  beforeEach(() => seedAccounts(twins));

  it('answers every call as the SQLite event log does', async () => {
    const typed: Queries['accountEvents'] = accountEventQueries(twins.pg);
    const expected = await story(answering(twins.sqlite.accountEvents));
    expect(await story(typed)).toEqual(expected);
  });

  it('numbers each account’s events on their own, 1, 2, 3... without gaps, whatever the others write', async () => {
    const events: Queries['accountEvents'] = accountEventQueries(twins.pg);
    for (let index = 1; index <= 7; index++) {
      const accountId = index % 3 ? ACCOUNT : OTHER_ACCOUNT;
      await events.append({ accountId, type: 'message.status', data: `{"n":${index}}`, occurredAt: index * 100 });
    }
    expect((await events.after(ACCOUNT, 0, 10)).map((event) => [event.seq, event.data])).toEqual([
      [1, '{"n":1}'],
      [2, '{"n":2}'],
      [3, '{"n":4}'],
      [4, '{"n":5}'],
      [5, '{"n":7}'],
    ]);
    expect((await events.after(OTHER_ACCOUNT, 0, 10)).map((event) => event.seq)).toEqual([1, 2]);
  });
});
