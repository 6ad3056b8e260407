import { describe, expect, it } from 'vitest';
import { makeTestApp, type TestAccount, type TestApp } from '../helpers/app.ts';
import { expectMessageError } from '../helpers/expect.ts';
import { ALICE } from '../helpers/fixtures.ts';
import { accountEvents, accountIdOf, accountOutbox, fakeProvider, subscribe } from '../helpers/sdk-surface.ts';

const ECHO = '+12125550106';
const TYPING_HOOK = 'https://hooks.example.com/typing';

function typing(t: TestApp, account: TestAccount | undefined, body: unknown) {
  return t.call('POST', '/api/send-typing-indicator', account, body);
}

describe('POST /api/send-typing-indicator', () => {
  it('answers {number, status: SENT, error_message: null} for start and stop', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    for (const body of [
      { number: ALICE, from_number: account.numbers[0] },
      { number: ALICE, from_number: account.numbers[0], state: 'start', max_duration_ms: 5000 },
      { number: ALICE, from_number: account.numbers[0], state: 'stop' },
    ]) {
      const reply = await typing(t, account, body);
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      expect(reply.body).toEqual({ number: ALICE, status: 'SENT', error_message: null });
    }
  });

  it('normalises the number to E.164', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const reply = await typing(t, account, { number: '+1 (415) 555-0100', from_number: account.numbers[0] });
    expect(reply.body.number, JSON.stringify(reply.body)).toBe(ALICE);
  });

  it.each([
    [{ number: 'alice' }, /number/],
    [{ number: undefined }, /number/],
    [{ from_number: undefined }, /from_number/],
    [{ state: 'typing' }, /state must be start or stop/],
    [{ max_duration_ms: 0 }, /max_duration_ms must be a positive whole number/],
    [{ max_duration_ms: 1.5 }, /max_duration_ms must be a positive whole number/],
    [{ max_duration_ms: '100' }, /max_duration_ms/],
    [{ state: 'stop', max_duration_ms: 100 }, /only to state start/],
  ])('refuses %j with 400/4000 naming the field', async (change, message) => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const reply = await typing(t, account, { number: ALICE, from_number: account.numbers[0], ...change });
    expectMessageError(reply, 400, 4000);
    expect(reply.body.error_message).toMatch(message);
  });

  it("refuses a from_number that is not one of the account's lines", async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const other = await t.createAccount();
    const reply = await typing(t, account, { number: ALICE, from_number: other.numbers[0] });
    expectMessageError(reply, 400, 4000);
    expect(reply.body.error_message).toMatch(/from_number .* is not one of this account's numbers/);
  });

  it('refuses an opted-out number with 400/4000 "opted out"', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    await t.call('POST', '/sandbox/inbound', account, { number: ALICE, content: 'hello' });
    const contact = (await t.store.contacts.findByPhone(await accountIdOf(t, account), ALICE))!;
    t.db.$client.prepare('update contacts set opted_out = 1 where id = ?').run(contact.id);
    const reply = await typing(t, account, { number: ALICE, from_number: account.numbers[0] });
    expectMessageError(reply, 400, 4000);
    expect(reply.body.error_message).toMatch(/opted out/);
  });

  it('answers 401 without credentials', async () => {
    const t = makeTestApp();
    expectMessageError(await typing(t, undefined, { number: ALICE, from_number: '+14155550199' }), 401, 4010);
  });

  it('sandbox: the echo number types back, a typing_indicator webhook and a typing.changed event', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    await subscribe(t, account, 'typing_indicator', TYPING_HOOK);
    const line = account.numbers[0]!;
    expect((await typing(t, account, { number: ECHO, from_number: line })).status).toBe(200);

    const [row, ...more] = await accountOutbox(t, account);
    expect(more).toEqual([]);
    expect(row).toMatchObject({ url: TYPING_HOOK, eventType: 'typing.changed', messageHandle: `typing:${line}:${ECHO}` });
    expect(JSON.parse(row!.payload)).toEqual({ number: ECHO, from_number: line, is_typing: true, timestamp: expect.any(String) });
    expect((await accountEvents(t, account)).map((event) => [event.type, event.data])).toEqual([
      ['typing.changed', { number: ECHO, from_number: line, is_typing: true }],
    ]);
  });

  it('sandbox: any other number types nothing back', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    await subscribe(t, account, 'typing_indicator', TYPING_HOOK);
    await typing(t, account, { number: ALICE, from_number: account.numbers[0] });
    await typing(t, account, { number: ECHO, from_number: account.numbers[0], state: 'stop' });
    expect(await accountOutbox(t, account)).toEqual([]);
    expect(await accountEvents(t, account)).toEqual([]);
  });

  it('relay: forwards the call to the provider and answers its answer', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const calls = fakeProvider(t, () => ({ status: 200, body: { number: ALICE, status: 'SENT', error_message: null, upstream: true } }));
    const reply = await typing(t, account, { number: ALICE, from_number: account.numbers[0], max_duration_ms: 3000 });
    expect(reply.body).toEqual({ number: ALICE, status: 'SENT', error_message: null, upstream: true });
    expect(calls).toEqual([
      {
        method: 'POST',
        path: '/api/send-typing-indicator',
        body: { number: ALICE, from_number: account.numbers[0], state: 'start', max_duration_ms: 3000 },
      },
    ]);

    fakeProvider(t, () => ({ status: 400, body: { status: 'ERROR', error_message: 'provider says no' } }));
    const refused = await typing(t, account, { number: ALICE, from_number: account.numbers[0] });
    expect(refused.status).toBe(400);
    expect(refused.body.error_message).toBe('provider says no');
  });
});
