import { beforeEach, describe, expect, it } from 'vitest';
import { accountQueries } from '../../../src/db/postgres/queries/accounts.ts';
import type { Queries } from '../../../src/db/store.ts';
import { ALICE, BOB, CAROL } from '../../helpers/fixtures.ts';
import { accountRow, type TwinModule, twinModule, useTwins } from '../../helpers/postgres-twins.ts';

const LINE_1 = '+14155559001';
const LINE_2 = '+14155559002';
const LINE_3 = '+14155559003';

describe('the PostgreSQL account queries answer as SQLite’s', () => {
  const twins = useTwins();
  let accounts: TwinModule<Queries['accounts']>;

  beforeEach(async () => {
    accounts = twinModule(twins, 'accounts', accountQueries(twins.pg));
    await accounts.same(async (q) => {
      await q.insertAccount(accountRow('b', 2_000));
      await q.insertAccount(accountRow('a', 1_000));
      await q.insertAccount({ ...accountRow('c', 2_000), email: 'aa@example.com' });
    });
  });

  it('finds accounts by key id, id and email, and lists and counts them', async () => {
    expect((await accounts.same((q) => q.findByKeyId('key-a')))?.id).toBe('a');
    expect(await accounts.same((q) => q.findByKeyId('nobody'))).toBeUndefined();
    expect(await accounts.same((q) => q.findById('b'))).toEqual(accountRow('b', 2_000));
    expect(await accounts.same((q) => q.findById('nobody'))).toBeUndefined();
    expect((await accounts.same((q) => q.findByEmail('b@example.com')))?.id).toBe('b');
    expect((await accounts.same((q) => q.list())).map((row) => row.id)).toEqual(['a', 'c', 'b']);
    expect(await accounts.same((q) => q.count())).toBe(3);
    await accounts.same((q) => q.updateSecretHash('a', 'new-hash'));
    expect((await accounts.same((q) => q.findById('a')))?.apiSecretHash).toBe('new-hash');
  });

  it('gives a line one owner, and removes only the owner’s line', async () => {
    expect(await accounts.same((q) => q.insertServiceNumber('a', LINE_1, 10))).toBe(true);
    expect(await accounts.same((q) => q.insertServiceNumber('b', LINE_1, 11))).toBe(false);
    expect((await accounts.same((q) => q.findByServiceNumber(LINE_1)))?.id).toBe('a');
    expect(await accounts.same((q) => q.findByServiceNumber(LINE_2))).toBeUndefined();
    expect(await accounts.same((q) => q.deleteServiceNumber('b', LINE_1))).toBe(false);
    expect(await accounts.same((q) => q.deleteServiceNumber('a', LINE_1))).toBe(true);
    expect(await accounts.same((q) => q.findByServiceNumber(LINE_1))).toBeUndefined();
  });

  it('pins end users to the least loaded line, and counts what depends on a line', async () => {
    await accounts.same(async (q) => {
      await q.insertServiceNumber('a', LINE_2, 20);
      await q.insertServiceNumber('a', LINE_1, 20);
      await q.insertServiceNumber('a', LINE_3, 10);
    });
    expect(await accounts.same((q) => q.listServiceNumbers('a'))).toEqual([LINE_3, LINE_1, LINE_2]);
    expect(await accounts.same((q) => q.leastLoadedLine('a'))).toBe(LINE_3);
    expect(await accounts.same((q) => q.leastLoadedLine('b'))).toBeUndefined();
    await accounts.same((q) => q.pinEndUser('a', ALICE, LINE_3, 30));
    expect(await accounts.same((q) => q.leastLoadedLine('a'))).toBe(LINE_1);
    await accounts.same((q) => q.pinEndUser('a', BOB, LINE_1, 31));
    await accounts.same((q) => q.pinEndUser('a', CAROL, LINE_3, 32));
    expect(await accounts.same((q) => q.leastLoadedLine('a'))).toBe(LINE_2);
    expect(await accounts.same((q) => q.findPinnedLine('a', ALICE))).toBe(LINE_3);
    expect(await accounts.same((q) => q.findPinnedLine('b', ALICE))).toBeUndefined();
    expect(await accounts.same((q) => q.lineUsers(LINE_3))).toEqual({ pinnedEndUsers: 2, groups: 0 });
    expect(await accounts.same((q) => q.lineUsers(LINE_2))).toEqual({ pinnedEndUsers: 0, groups: 0 });
  });

  it('releases a line: its end users unpinned, as SQLite does', async () => {
    await accounts.same(async (q) => {
      await q.insertServiceNumber('a', LINE_1, 10);
      await q.insertServiceNumber('a', LINE_2, 11);
      await q.pinEndUser('a', ALICE, LINE_1, 30);
      await q.pinEndUser('a', BOB, LINE_2, 31);
    });
    expect(await accounts.same((q) => q.releaseLine(LINE_1, LINE_2))).toBe(0);
    expect(await accounts.same((q) => q.lineUsers(LINE_1))).toEqual({ pinnedEndUsers: 0, groups: 0 });
    expect(await accounts.same((q) => q.findPinnedLine('a', ALICE))).toBeUndefined();
    expect(await accounts.same((q) => q.findPinnedLine('a', BOB))).toBe(LINE_2);
  });

  it('refuses a second pin of the same end user, as SQLite does', async () => {
    await accounts.same((q) => q.insertServiceNumber('a', LINE_1, 10));
    await accounts.same((q) => q.pinEndUser('a', ALICE, LINE_1, 30));
    await expect(accountQueries(twins.pg).pinEndUser('a', ALICE, LINE_1, 31)).rejects.toMatchObject({ cause: { code: '23505' } });
    expect(() => twins.sqlite.accounts.pinEndUser('a', ALICE, LINE_1, 31)).toThrow();
  });
});
