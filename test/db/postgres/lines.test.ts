import { describe, expect, it } from 'vitest';
import { accountQueries } from '../../../src/db/postgres/queries/accounts.ts';
import { lineQueries } from '../../../src/db/postgres/queries/lines.ts';
import { accountRow, heldTransaction, twinModule, useTwins } from '../../helpers/postgres-twins.ts';

describe('the PostgreSQL line queries answer as SQLite’s', () => {
  const twins = useTwins();

  it('lists an account’s lines by when they were added, then by number', async () => {
    await twinModule(twins, 'accounts', accountQueries(twins.pg)).same(async (q) => {
      await q.insertAccount(accountRow('a', 1));
      await q.insertAccount(accountRow('b', 1));
      await q.insertServiceNumber('a', '+14155559003', 20);
      await q.insertServiceNumber('a', '+14155559002', 10);
      await q.insertServiceNumber('a', '+14155559001', 20);
      await q.insertServiceNumber('b', '+14155559004', 5);
    });
    const lines = twinModule(twins, 'lines', lineQueries(twins.pg));
    expect(await lines.same((q) => q.ofAccount('a'))).toEqual([
      { number: '+14155559002', createdAt: 10, carrier: null },
      { number: '+14155559001', createdAt: 20, carrier: null },
      { number: '+14155559003', createdAt: 20, carrier: null },
    ]);
    expect(await lines.same((q) => q.ofAccount('nobody'))).toEqual([]);
  });
});

describe('new end users pinned by instances at once', () => {
  const twins = useTwins();

  it('go to another line while one is held by a transaction still pinning, instead of waiting for it', async () => {
    const accounts = accountQueries(twins.pg);
    await accounts.insertAccount(accountRow('a', 1));
    await accounts.insertServiceNumber('a', '+14155559001', 10);
    await accounts.insertServiceNumber('a', '+14155559002', 20);
    const first = heldTransaction(twins.pg);
    const inFirst = accountQueries(await first.tx);
    expect(await inFirst.leastLoadedLine('a')).toBe('+14155559001');
    await inFirst.pinEndUser('a', '+14155550001', '+14155559001', 1);

    const other = accountQueries(twins.connect());
    const second = await Promise.race([
      other.leastLoadedLine('a'),
      new Promise<string>((resolve) => setTimeout(() => resolve('waited'), 2_000)),
    ]);
    expect(second).toBe('+14155559002');
    await first.commit();
    expect(await accounts.leastLoadedLine('a')).toBe('+14155559002');
  });
});
