import { afterEach, describe, expect, it } from 'vitest';
import type { MessageRow } from '../../src/db/rows.ts';
import type { NewSandboxStep } from '../../src/db/store.ts';
import { makeTestApp, type TestAccount, type TestApp } from '../helpers/app.ts';
import { accountRow, send } from '../helpers/delivery.ts';
import { ALICE, BOB, CAROL, DAVE } from '../helpers/fixtures.ts';

/**
 * The set-based twins (`<method>Many`) the group commit calls in place of many calls of one
 * method: each answers, in call order, exactly what the single calls answer one after another,
 * misses and repeated calls included.
 */

let t: TestApp;
afterEach(() => t?.close());

async function setup() {
  t = makeTestApp();
  const account = await accountRow(t, await t.createAccount());
  const other = await accountRow(t, await t.createAccount());
  return { account, other };
}

describe('contacts.findWithPinMany and findByPhoneMany', () => {
  it('answers each number’s contact and pinned line, in order, misses and repeats included', async () => {
    const { account, other } = await setup();
    const a = await t.createAccount();
    await send(t, a, { number: ALICE });
    await send(t, a, { number: BOB });
    const accountId = (await accountRow(t, a)).id;
    const calls: [string, string][] = [
      [accountId, BOB],
      [accountId, CAROL],
      [accountId, ALICE],
      [other.id, ALICE],
      [accountId, BOB],
      [account.id, DAVE],
    ];
    const singles = [];
    for (const call of calls) singles.push(await t.store.contacts.findWithPin(...call));
    expect(singles[0]!.contact?.phone).toBe(BOB);
    expect(singles[0]!.pinnedLine).toMatch(/^\+/);
    expect(singles[1]).toEqual({ contact: undefined, pinnedLine: undefined });
    expect(await t.store.contacts.findWithPinMany(calls)).toEqual(singles);
    const byPhone = [];
    for (const call of calls) byPhone.push(await t.store.contacts.findByPhone(...call));
    expect(byPhone.map((contact) => contact?.phone)).toEqual([BOB, undefined, ALICE, undefined, BOB, undefined]);
    expect(await t.store.contacts.findByPhoneMany(calls)).toEqual(byPhone);
    expect(await t.store.contacts.findWithPinMany([])).toEqual([]);
  });
});

/** Sends `count` messages to ALICE and answers their stored rows. */
async function sent(account: TestAccount, count: number): Promise<MessageRow[]> {
  const rows: MessageRow[] = [];
  for (let i = 0; i < count; i += 1) {
    const view = await send(t, account, { content: `hello ${i}` });
    rows.push((await t.store.messages.findByAnyHandle(view.message_handle))!);
  }
  return rows;
}

describe('messages.findByAnyHandleMany', () => {
  it('finds each message by our handle or the transport’s, in order, misses and repeats included', async () => {
    await setup();
    const account = await t.createAccount();
    const [first, second] = await sent(account, 2);
    await t.store.messages.markHandedOver(second!.id, 'carrier-2', 5);
    const calls: [string][] = [['carrier-2'], ['nobody'], [first!.handle], [second!.handle], [first!.handle]];
    const singles = [];
    for (const call of calls) singles.push(await t.store.messages.findByAnyHandle(...call));
    expect(singles.map((row) => row?.id)).toEqual([second!.id, undefined, first!.id, second!.id, first!.id]);
    expect(await t.store.messages.findByAnyHandleMany(calls)).toEqual(singles);
  });

  it('runs in the transaction it is called in, seeing its writes', async () => {
    await setup();
    const [message] = await sent(await t.createAccount(), 1);
    const found = await t.store.transaction(async (tx) => {
      await tx.messages.markHandedOver(message!.id, 'carrier-in-tx', 7);
      return tx.messages.findByAnyHandleMany([['carrier-in-tx']]);
    });
    expect(found.map((row) => row?.id)).toEqual([message!.id]);
  });
});

describe('messages.findReportTargetMany', () => {
  it('answers each report’s target as findReportTarget does, seen ids and unknown handles included', async () => {
    await setup();
    const [first, second] = await sent(await t.createAccount(), 2);
    await t.store.messages.insertStatusEvent({
      id: 'evt-seen',
      messageHandle: first!.handle,
      status: 'SENT',
      errorCode: null,
      errorMessage: null,
      source: 'carrier',
      sourceEventId: 'seen-id',
      applied: true,
      implied: false,
      notAppliedReason: null,
      receivedAt: 5,
    });
    const calls: [string, string, string | null][] = [
      [first!.handle, 'carrier', 'seen-id'],
      [first!.handle, 'carrier', 'new-id'],
      [second!.handle, 'carrier', null],
      ['unknown', 'carrier', 'seen-id'],
      ['unknown', 'carrier', 'new-id'],
      ['unknown', 'carrier', null],
      [first!.handle, 'other-source', 'seen-id'],
      [first!.handle, 'carrier', 'new-id'],
    ];
    const singles = [];
    for (const call of calls) singles.push(await t.store.messages.findReportTarget(...call));
    expect(singles.map((target) => (target.seen ? 'seen' : target.message?.id))).toEqual([
      'seen',
      first!.id,
      second!.id,
      'seen',
      undefined,
      undefined,
      first!.id,
      first!.id,
    ]);
    expect(await t.store.transaction((tx) => tx.messages.findReportTargetMany(calls))).toEqual(singles);
  });
});

describe('messages.markHandedOverMany', () => {
  it('writes what the single calls write one after the other, the later call for a message last', async () => {
    await setup();
    const account = await t.createAccount();
    const [a1, a2, b1, b2] = await sent(account, 4);
    const singles: [number, string, number][] = [
      [a1!.id, 'a-1', 10],
      [a2!.id, 'a-2', 20],
      [a1!.id, 'a-3', 30],
    ];
    for (const call of singles) await t.store.messages.markHandedOver(...call);
    const answers = await t.store.messages.markHandedOverMany([
      [b1!.id, 'b-1', 10],
      [b2!.id, 'b-2', 20],
      [b1!.id, 'b-3', 30],
    ]);
    expect(answers).toEqual([undefined, undefined, undefined]);
    const handedOver = async (row: MessageRow) => {
      const { transportHandle, handedOverAt } = (await t.store.messages.findByAnyHandle(row.handle))!;
      return [transportHandle?.slice(2), handedOverAt];
    };
    expect([await handedOver(a1!), await handedOver(a2!)]).toEqual([
      ['3', 30],
      ['2', 20],
    ]);
    expect([await handedOver(b1!), await handedOver(b2!)]).toEqual([await handedOver(a1!), await handedOver(a2!)]);
  });
});

describe('orphans.takeMany', () => {
  it('hands each handle’s waiting events, in arrival order, to its first call only', async () => {
    await setup();
    const orphan = (transportHandle: string, status: 'SENT' | 'DELIVERED', receivedAt: number) =>
      t.store.orphans.insert({
        transportHandle,
        status,
        errorCode: null,
        errorMessage: null,
        wasDowngraded: null,
        source: 'carrier',
        sourceEventId: null,
        receivedAt,
      });
    for (const prefix of ['a', 'b']) {
      await orphan(`${prefix}-1`, 'SENT', 1);
      await orphan(`${prefix}-2`, 'SENT', 2);
      await orphan(`${prefix}-1`, 'DELIVERED', 3);
    }
    const shape = (taken: { transportHandle: string; status: string; receivedAt: number }[][]) =>
      taken.map((events) => events.map((event) => [event.transportHandle.slice(2), event.status, event.receivedAt]));
    const singles = [];
    for (const handle of ['a-1', 'a-9', 'a-2', 'a-1']) singles.push(await t.store.orphans.take(handle));
    expect(shape(singles)).toEqual([
      [
        ['1', 'SENT', 1],
        ['1', 'DELIVERED', 3],
      ],
      [],
      [['2', 'SENT', 2]],
      [],
    ]);
    expect(shape(await t.store.orphans.takeMany([['b-1'], ['b-9'], ['b-2'], ['b-1']]))).toEqual(shape(singles));
    expect(await t.store.orphans.takeMany([['b-1'], ['b-2']])).toEqual([[], []]);
  });
});

describe('sandbox.planMany', () => {
  it('answers how many steps each call planned anew, a step two calls plan counting for the first', async () => {
    await setup();
    const step = (messageHandle: string, stepIndex: number, dueAt: number): NewSandboxStep => ({
      messageHandle,
      stepIndex,
      kind: 'status',
      status: 'SENT',
      errorCode: null,
      errorMessage: null,
      wasDowngraded: null,
      inboundFrom: null,
      inboundContent: null,
      groupId: null,
      dueAt,
    });
    const calls = (prefix: string): [NewSandboxStep[]][] => [
      [[step(`${prefix}-1`, 0, 10), step(`${prefix}-1`, 1, 20)]],
      [[]],
      [[step(`${prefix}-1`, 1, 20), step(`${prefix}-2`, 0, 5)]],
      [[step(`${prefix}-1`, 0, 10)]],
      [[step(`${prefix}-3`, 0, 5), step(`${prefix}-3`, 0, 5)]],
    ];
    const singles = [];
    for (const call of calls('a')) singles.push(await t.store.sandbox.plan(...call));
    expect(singles).toEqual([2, 0, 1, 0, 1]);
    expect(await t.store.sandbox.planMany(calls('b'))).toEqual(singles);
    expect(await t.store.sandbox.planMany([])).toEqual([]);
    // Stored as given: the earliest due step, ties in the order planned.
    const due = await t.store.transaction((tx) => tx.sandbox.nextDue(100));
    expect([due?.messageHandle, due?.stepIndex]).toEqual(['a-2', 0]);
  });
});

describe('accounts.leastLoadedLineMany', () => {
  it('spreads one account’s calls over its lines as one call after another, each followed by its pin, would', async () => {
    t = makeTestApp();
    const account = await accountRow(t, await t.createAccount({ numbers: 3 }));
    const other = await accountRow(t, await t.createAccount({ numbers: 2 }));
    // The first line already serves two people: the others fill up to it first.
    const [busy] = await t.store.accounts.listServiceNumbers(account.id);
    await t.store.accounts.pinEndUser(account.id, '+12125550101', busy!, 1);
    await t.store.accounts.pinEndUser(account.id, '+12125550102', busy!, 1);
    const calls: [string][] = [[account.id], [other.id], [account.id], [account.id], [account.id], [account.id], ['no-such-account']];

    const merged = await t.store.accounts.leastLoadedLineMany(calls);

    const oneByOne: (string | undefined)[] = [];
    for (const [index, [accountId]] of calls.entries()) {
      const line = await t.store.accounts.leastLoadedLine(accountId);
      oneByOne.push(line);
      if (line) await t.store.accounts.pinEndUser(accountId, `+1212555020${index}`, line, 2);
    }
    expect(merged).toEqual(oneByOne);
    expect(new Set(merged.slice(2, 5)).size).toBe(2);
    expect(merged.at(-1)).toBeUndefined();
  });
});
