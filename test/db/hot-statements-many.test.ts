import { afterEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
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

describe('contacts.findWithPinMany', () => {
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
    expect(await t.store.contacts.findWithPinMany([])).toEqual([]);
  });
});
