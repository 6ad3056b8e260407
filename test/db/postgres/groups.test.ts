import { beforeEach, describe, expect, it } from 'vitest';
import { groupQueries } from '../../../src/db/postgres/queries/groups.ts';
import { messageQueries } from '../../../src/db/postgres/queries/messages.ts';
import type { GroupRow } from '../../../src/db/rows.ts';
import type { SqliteQueries } from '../../../src/db/sqlite/queries.ts';
import type { Queries } from '../../../src/db/store.ts';
import { ACCOUNT, BOB, CAROL, LINE, message, OTHER_ACCOUNT, seedWorld, T0, useTwins } from '../../helpers/postgres-twins.ts';

const twins = useTwins();

type Groups = Queries['groups'] | SqliteQueries['groups'];
let pg: Queries['groups'];

async function both<R>(call: (groups: Groups) => R | Promise<R>): Promise<[R, R]> {
  return [await call(twins.sqlite.groups), await call(pg)];
}

async function expectSame<R>(call: (groups: Groups) => R | Promise<R>): Promise<R> {
  const [fromSqlite, fromPg] = await both(call);
  expect(fromPg).toEqual(fromSqlite);
  return fromPg;
}

beforeEach(async () => {
  await seedWorld(twins);
  pg = groupQueries(twins.pg) satisfies Queries['groups'];
});

const group: GroupRow = {
  id: 'grp_new',
  accountId: ACCOUNT,
  memberKey: `${BOB},${CAROL}`,
  lineNumber: LINE,
  displayName: '',
  transportGroupId: null,
  photoMediaId: null,
  createdAt: T0,
  updatedAt: T0,
};

describe('the PostgreSQL group queries', () => {
  it('store groups and their members, and find them by key, id and transport id', async () => {
    await both((g) => g.insert(group, [CAROL, BOB]));
    expect(await expectSame((g) => g.findByMemberKey(ACCOUNT, `${BOB},${CAROL}`))).toEqual(group);
    await expectSame((g) => g.findByMemberKey(OTHER_ACCOUNT, `${BOB},${CAROL}`));
    await expectSame((g) => g.findById(ACCOUNT, 'grp_new'));
    await expectSame((g) => g.findById(OTHER_ACCOUNT, 'grp_new'));
    await both((g) => g.setTransportGroupId('grp_new', 'tg-1'));
    expect((await expectSame((g) => g.findByTransportGroupId(ACCOUNT, 'tg-1')))?.id).toBe('grp_new');
    expect(await expectSame((g) => g.members('grp_new'))).toEqual([BOB, CAROL]);
  });

  it('keep one group of a set per line, finding it on a line or the oldest on any', async () => {
    const SECOND_LINE = '+15550000003';
    await twins.seed('service_numbers', [{ number: SECOND_LINE, accountId: ACCOUNT, createdAt: T0 }]);
    await both((g) => g.insert({ ...group, id: 'grp_later', lineNumber: SECOND_LINE, createdAt: T0 + 5 }, [BOB, CAROL]));
    await both((g) => g.insert(group, [CAROL, BOB]));
    const key = `${BOB},${CAROL}`;
    expect((await expectSame((g) => g.findByMemberKey(ACCOUNT, key, SECOND_LINE)))?.id).toBe('grp_later');
    expect((await expectSame((g) => g.findByMemberKey(ACCOUNT, key, LINE)))?.id).toBe('grp_new');
    expect((await expectSame((g) => g.findByMemberKey(ACCOUNT, key)))?.id).toBe('grp_new');
    expect(() => twins.sqlite.groups.insert({ ...group, id: 'grp_twin' }, [BOB, CAROL])).toThrow(/UNIQUE/);
    await expect(pg.insert({ ...group, id: 'grp_twin' }, [BOB, CAROL])).rejects.toMatchObject({ cause: { code: '23505' } });
  });

  it('change members, key, name and photo as SQLite does', async () => {
    await both((g) => g.insert(group, [BOB, CAROL]));
    await both((g) => g.addMember('grp_new', '+14155550150', `${BOB},${CAROL},+14155550150`, T0 + 1));
    expect(await expectSame((g) => g.members('grp_new'))).toEqual([BOB, CAROL, '+14155550150']);
    await both((g) => g.removeMember('grp_new', BOB, `${CAROL},+14155550150`, T0 + 2));
    await both((g) => g.rename('grp_new', 'Friends', T0 + 3));
    await both((g) => g.setPhoto('grp_new', 'med_1', T0 + 4));
    await expectSame((g) => g.findById(ACCOUNT, 'grp_new'));
    await both((g) => g.setMemberKey('grp_new', 'retired:grp_new'));
    expect((await expectSame((g) => g.findById(ACCOUNT, 'grp_new')))?.memberKey).toBe('retired:grp_new');
    await expectSame((g) => g.members('grp_new'));
  });

  it('say whether a message to the group waits for its hand-over', async () => {
    expect(await expectSame((g) => g.awaitingHandover(ACCOUNT, 'grp_ab'))).toBe(false);
    const row = message({ number: '', groupId: 'grp_ab' });
    const [stored] = [twins.sqlite.messages.insert(row), await messageQueries(twins.pg).insert(row)];
    expect(await expectSame((g) => g.awaitingHandover(ACCOUNT, 'grp_ab'))).toBe(true);
    twins.sqlite.messages.markHandedOver(stored.id, 'up-1', T0);
    await messageQueries(twins.pg).markHandedOver(stored.id, 'up-1', T0);
    expect(await expectSame((g) => g.awaitingHandover(ACCOUNT, 'grp_ab'))).toBe(false);
  });
});
