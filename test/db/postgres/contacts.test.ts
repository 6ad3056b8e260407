import { beforeEach, describe, expect, it } from 'vitest';
import { accountQueries } from '../../../src/db/postgres/queries/accounts.ts';
import { contactQueries } from '../../../src/db/postgres/queries/contacts.ts';
import type { Queries } from '../../../src/db/store.ts';
import { CONTACT_ORDER_FIELDS } from '../../../src/domain/contact-order.ts';
import { CONTACT_V2_ORDER_FIELDS } from '../../../src/domain/contact-view-v2.ts';
import { ALICE, BOB, CAROL, DAVE } from '../../helpers/fixtures.ts';
import { accountRow, contactRow, type TwinModule, twinModule, useTwins } from '../../helpers/postgres-twins.ts';

const LINE = '+14155559001';

describe('the PostgreSQL contact queries answer as SQLite’s', () => {
  const twins = useTwins();
  let contacts: TwinModule<Queries['contacts']>;

  beforeEach(async () => {
    const accounts = twinModule(twins, 'accounts', accountQueries(twins.pg));
    await accounts.same(async (q) => {
      await q.insertAccount(accountRow('a', 1));
      await q.insertAccount(accountRow('b', 2));
      await q.insertServiceNumber('a', LINE, 3);
      await q.pinEndUser('a', BOB, LINE, 4);
    });
    contacts = twinModule(twins, 'contacts', contactQueries(twins.pg));
  });

  /** Four contacts of account a (one deleted, two never written to) and one of account b. */
  async function seed(): Promise<void> {
    await contacts.same(async (q) => [
      await q.insert(contactRow('c1', ALICE, { firstName: 'Zoe', lastName: 'Adams', lastMessageAt: 500, createdAt: 30, updatedAt: 40 })),
      await q.insert(
        contactRow('c2', BOB, {
          firstName: 'Amy',
          lastName: 'Young',
          tags: ['vip'],
          customVariables: { plan: 'gold' },
          createdAt: 10,
          updatedAt: 50,
        }),
      ),
      await q.insert(contactRow('c3', CAROL, { firstName: 'Max', lastName: 'Mill', createdAt: 20, updatedAt: 20 })),
      await q.insert(contactRow('c4', DAVE, { firstName: 'Gone', deletedAt: 60, lastMessageAt: 900 })),
      await q.insert(contactRow('c5', ALICE, { accountId: 'b' })),
    ]);
  }

  it('inserts a contact once per phone and finds it by id and phone, in its own account only', async () => {
    await seed();
    expect(await contacts.same((q) => q.insert(contactRow('c6', ALICE)))).toBe(false);
    expect(await contacts.same((q) => q.findById('a', 'c2'))).toMatchObject({
      tags: ['vip'],
      customVariables: { plan: 'gold' },
      optedOut: false,
    });
    expect(await contacts.same((q) => q.findById('b', 'c2'))).toBeUndefined();
    expect((await contacts.same((q) => q.findByPhone('b', ALICE)))?.id).toBe('c5');
    expect(await contacts.same((q) => q.findByPhone('a', '+10000000000'))).toBeUndefined();
    expect(await contacts.same((q) => q.countLive('a'))).toBe(3);
  });

  it('lists live contacts in every order, each way, with SQLite’s place for never written ones', async () => {
    await seed();
    for (const orderBy of CONTACT_ORDER_FIELDS) {
      for (const direction of ['asc', 'desc'] as const) {
        const ids = (await contacts.same((q) => q.list('a', { orderBy, direction, limit: 10, offset: 0 }))).map((row) => row.id);
        expect(ids).toHaveLength(3);
        expect(await contacts.same((q) => q.list('a', { orderBy, direction, limit: 1, offset: 1 }))).toHaveLength(1);
      }
    }
  });

  it('lists v2 contacts with their pinned line, filtered and in every order', async () => {
    await seed();
    for (const orderBy of CONTACT_V2_ORDER_FIELDS) {
      for (const direction of ['asc', 'desc'] as const) {
        await contacts.same((q) => q.listV2('a', { orderBy, direction, limit: 10, offset: 0 }));
      }
    }
    const bob = await contacts.same((q) => q.listV2('a', { orderBy: 'created_at', direction: 'asc', limit: 10, offset: 0, phone: BOB }));
    expect(bob.map((row) => [row.id, row.sendblueNumber])).toEqual([['c2', LINE]]);
    const recent = await contacts.same((q) =>
      q.listV2('a', { orderBy: 'created_at', direction: 'desc', limit: 10, offset: 0, createdSince: 20 }),
    );
    expect(recent.map((row) => [row.id, row.sendblueNumber])).toEqual([
      ['c1', ''],
      ['c3', ''],
    ]);
    expect(
      await contacts.same((q) => q.listV2('a', { orderBy: 'phone', direction: 'asc', limit: 10, offset: 0, contactId: 'c4' })),
    ).toEqual([]);
  });

  it('updates fields, deletes softly and revives as a new contact keeping the summary and opt-out', async () => {
    await seed();
    await contacts.same((q) => q.update('c1', { firstName: 'Zed', tags: ['a', 'b'], customVariables: { x: '1' }, optedOut: true }, 2_000));
    expect(await contacts.same((q) => q.findById('a', 'c1'))).toMatchObject({
      firstName: 'Zed',
      tags: ['a', 'b'],
      optedOut: true,
      updatedAt: 2_000,
    });
    await contacts.same((q) => q.softDelete('c1', 3_000));
    expect(await contacts.same((q) => q.countLive('a'))).toBe(2);
    const revived = await contacts.same((q) => q.revive('c1', 4_000));
    expect(revived).toMatchObject({
      firstName: '',
      tags: [],
      customVariables: {},
      optedOut: true,
      lastMessageAt: 500,
      deletedAt: null,
      createdAt: 4_000,
    });
    await expect(contactQueries(twins.pg).revive('nobody', 5_000)).rejects.toThrow('contact nobody vanished while being revived');
  });

  it('moves the conversation summary forward only, per direction', async () => {
    await seed();
    const summary = async () => {
      const row = await contacts.same((q) => q.findById('a', 'c3'));
      return row && [row.lastMessageAt, row.previewText, row.lastInboundAt, row.lastOutboundAt];
    };
    await contacts.same((q) => q.recordMessage('c3', 100, 'first out', true));
    expect(await summary()).toEqual([100, 'first out', null, 100]);
    await contacts.same((q) => q.recordMessage('c3', 200, 'reply in', false));
    expect(await summary()).toEqual([200, 'reply in', 200, 100]);
    await contacts.same((q) => q.recordMessage('c3', 150, 'late out', true));
    expect(await summary()).toEqual([200, 'reply in', 200, 150]);
    await contacts.same((q) => q.recordMessage('c3', 200, 'same time', true));
    expect(await summary()).toEqual([200, 'same time', 200, 200]);
    await contacts.same((q) => q.recordMessage('c3', 50, 'very late in', false));
    expect(await summary()).toEqual([200, 'same time', 200, 200]);
  });
});
