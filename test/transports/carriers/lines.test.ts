import { afterEach, describe, expect, it } from 'vitest';
import { addLines, createAccount, listAccounts, listLines, removeLines } from '../../../src/services/accounts.ts';
import { makeTestApp } from '../../helpers/app.ts';
import { accountRow, send, sendGroup } from '../../helpers/delivery.ts';
import { ALICE, BOB } from '../../helpers/fixtures.ts';
import { startTwilioWorld, type TwilioWorld } from '../../helpers/twilio-world.ts';

/**
 * Lines a carrier cannot serve (bound to none, to a carrier not configured, or a number the
 * Twilio account does not hold) are OFFLINE with their reason while the others serve, and never
 * go out through a real carrier; a line that carries conversations can be retired.
 */

const LINE = '+14155550160';
const GONE = '+14155550161';
const UNBOUND = '+14155550162';
const BLUE = '+14155550163';
const NOT_HELD = '+14155550164';

const worlds: TwilioWorld[] = [];
afterEach(async () => {
  await Promise.all(worlds.splice(0).map((world) => world.close()));
});

async function world(): Promise<TwilioWorld> {
  const started = await startTwilioWorld({ lines: [LINE, GONE] });
  worlds.push(started);
  return started;
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (let waited = 0; ; waited += 20) {
    const value = await read();
    if (done(value)) return value;
    if (waited > 10_000) throw new Error(`timed out; last: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The message once the courier gave up on it: these sends fail, and the timeout of `until` reports one that never does. */
async function failed(w: TwilioWorld, handle: string) {
  return until(
    async () => (await w.sdk.messages.retrieve(handle)).data,
    (message) => message?.status === 'ERROR',
  );
}

describe('lines a carrier cannot serve', () => {
  it('starts, serving the lines Twilio holds, with the others OFFLINE and their reason', async () => {
    const w = await world();
    const accountId = (await w.t.store.accounts.findByEmail(w.account.email))!.id;
    await w.t.store.accounts.insertServiceNumber(accountId, UNBOUND, 1);
    await w.t.store.accounts.insertServiceNumber(accountId, BLUE, 2, 'bluebubbles');
    // The Twilio account gave GONE up after textrelay bound it.
    w.twilio.numbers.splice(
      w.twilio.numbers.findIndex((number) => number.phone_number === GONE),
      1,
    );
    await w.start();

    const states = await w.sdk.lines.getState();
    const byLine = new Map((states.data ?? []).map((state) => [state.sendblue_number, state as unknown as Record<string, unknown>]));
    expect(byLine.get(LINE)).toMatchObject({ status: 'ONLINE' });
    expect(byLine.get(LINE)?.offline_reason).toBeUndefined();
    expect(byLine.get(GONE)).toMatchObject({
      status: 'OFFLINE',
      offline_reason: `${GONE} is not a number of Twilio account AC00000000000000000000000000000001`,
    });
    // A quick-start line left in a database now serving a carrier: the reason says how to be rid of it.
    expect(byLine.get(UNBOUND)).toMatchObject({ status: 'OFFLINE', offline_reason: expect.stringMatching(/^bound to no carrier/) });
    expect(byLine.get(UNBOUND)?.offline_reason).toContain(
      `remove it with \`textrelay accounts lines remove --email ${w.account.email} ${UNBOUND} --force\` once the account has a carrier's line, or serve the carrier from a fresh database (--db)`,
    );
    expect(byLine.get(BLUE)).toMatchObject({
      status: 'OFFLINE',
      offline_reason: 'bound to BlueBubbles, which TEXTRELAY_TRANSPORT does not configure',
    });

    const served = await w.sdk.messages.send({ number: ALICE, from_number: LINE, content: 'hello' });
    await until(
      async () => w.twilio.messages.length,
      (count) => count === 1,
    );
    expect(w.twilio.messages[0]!.form.get('From')).toBe(LINE);
    for (const [line, reason] of [
      [GONE, /is not a number of Twilio account/],
      [UNBOUND, /bound to no carrier/],
      [BLUE, /bound to BlueBubbles/],
    ] as const) {
      const refused = await w.sdk.messages.send({ number: BOB, from_number: line, content: 'not through Twilio' });
      const message = await failed(w, refused.message_handle as string);
      expect(message?.error_message).toMatch(reason);
    }
    expect(w.twilio.attempts.map((form) => form.get('From'))).toEqual([LINE]);
    expect((await w.sdk.messages.retrieve(served.message_handle as string)).data?.status).not.toBe('ERROR');
  });

  it('dates a line going OFFLINE, and back ONLINE, in status_changed_at', async () => {
    const w = await world();
    await w.start();
    const stateOf = async (line: string) => (await w.sdk.lines.getState()).data?.find((state) => state.sendblue_number === line);
    const added = (await stateOf(GONE))!;
    expect(added.status).toBe('ONLINE');

    // The Twilio account gives GONE up; the next probe (as textrelay status makes) finds it.
    w.t.clock.advance(60_000);
    w.twilio.numbers.splice(
      w.twilio.numbers.findIndex((number) => number.phone_number === GONE),
      1,
    );
    await w.carriers[0]!.probe();
    const wentOffline = (await stateOf(GONE))!;
    expect(wentOffline.status).toBe('OFFLINE');
    expect(wentOffline.status_changed_at).toBe(new Date(w.t.clock.now()).toISOString());
    expect(Date.parse(String(wentOffline.status_changed_at))).toBeGreaterThan(Date.parse(String(added.status_changed_at)));
    w.t.clock.advance(5_000);
    expect((await stateOf(GONE))!.status_changed_at).toBe(wentOffline.status_changed_at);

    w.twilio.numbers.push({ sid: 'PN0000000000000000000000000000000b', phone_number: GONE, sms_url: null });
    await w.carriers[0]!.probe();
    const back = (await stateOf(GONE))!;
    expect(back.status).toBe('ONLINE');
    expect(back.status_changed_at).toBe(new Date(w.t.clock.now()).toISOString());
  });

  it('refuses a line the Twilio account does not hold at lines add and at create, writing nothing', async () => {
    const w = await world();
    const refusal = await addLines(w.t.deps, w.account.email, [NOT_HELD], 'twilio').catch((error: unknown) => error);
    expect((refusal as Error).message).toBe(`${NOT_HELD} is not a number of Twilio account AC00000000000000000000000000000001`);
    const created = await createAccount(w.t.deps, { email: 'new@example.com', plan: 'blue', numbers: [NOT_HELD], carrier: 'twilio' }).catch(
      (error: unknown) => error,
    );
    expect((created as Error).message).toBe(`${NOT_HELD} is not a number of Twilio account AC00000000000000000000000000000001`);
    expect(await w.t.store.accounts.findByEmail('new@example.com')).toBeUndefined();
    expect((await listLines(w.t.deps, w.account.email)).numbers).toEqual([LINE, GONE]);
    w.twilio.numbers.push({ sid: 'PN0000000000000000000000000000000a', phone_number: NOT_HELD, sms_url: null });
    expect((await addLines(w.t.deps, w.account.email, [NOT_HELD], 'twilio')).numbers).toEqual([LINE, GONE, NOT_HELD]);
  });

  it("shows each line's carrier in the account listings", async () => {
    const w = await world();
    const accountId = (await w.t.store.accounts.findByEmail(w.account.email))!.id;
    await w.t.store.accounts.insertServiceNumber(accountId, UNBOUND, w.t.deps.clock.now() + 1_000);
    const expected = [
      { number: LINE, carrier: 'twilio' },
      { number: GONE, carrier: 'twilio' },
      { number: UNBOUND, carrier: null },
    ];
    expect((await listLines(w.t.deps, w.account.email)).lines).toEqual(expected);
    expect((await listAccounts(w.t.deps)).find((account) => account.email === w.account.email)?.lines).toEqual(expected);
  });
});

describe('retiring a line that carries conversations', () => {
  it('is refused without --force; with it, its people and groups move to another line and its history stays', async () => {
    const w = await world();
    await w.start();
    const sent = await w.sdk.messages.send({ number: ALICE, from_number: GONE, content: 'pinned to GONE' });
    await until(
      async () => w.twilio.messages.length,
      (count) => count === 1,
    );
    await expect(removeLines(w.t.deps, w.account.email, [GONE])).rejects.toThrow(
      `${GONE} still carries conversations (pinned end users: 1, groups: 0); retire it with --force`,
    );
    expect((await removeLines(w.t.deps, w.account.email, [GONE], { force: true })).numbers).toEqual([LINE]);
    const history = await w.sdk.messages.retrieve(sent.message_handle as string);
    expect(history.data).toMatchObject({ from_number: GONE, content: 'pinned to GONE' });
    // Alice's next message goes out from the line left.
    await send(w.t, w.account, { content: 'after the retirement' });
    await until(
      async () => w.twilio.messages.length,
      (count) => count === 2,
    );
    expect(w.twilio.messages[1]!.form.get('From')).toBe(LINE);
  });

  it("moves the line's groups to a line the account keeps", async () => {
    const t = makeTestApp();
    const account = await t.createAccount({ numbers: [LINE, GONE] });
    const group = await sendGroup(t, account, { fromNumber: GONE });
    await removeLines(t.deps, account.email, [GONE], { force: true });
    expect((await t.store.groups.findById((await accountRow(t, account)).id, group.group_id!))?.lineNumber).toBe(LINE);
    expect(await t.store.messages.findByAnyHandle(group.message_handle)).toMatchObject({ lineNumber: GONE });
  });
});
