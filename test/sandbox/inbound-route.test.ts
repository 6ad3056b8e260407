import { describe, expect, it } from 'vitest';
import { makeTestApp, type TestAccount, type TestApp } from '../helpers/app.ts';
import { expectMessageError, listMessages } from '../helpers/expect.ts';
import { ALICE, BOB, CAROL, distinctNumbers, show } from '../helpers/fixtures.ts';
import { outboxFor, payloadsFor } from '../helpers/outbox.ts';

const [PERSON] = distinctNumbers(1) as [string];
const RECEIVE_WEBHOOK = 'https://hooks.example.com/receive';

function inbound(t: TestApp, account: TestAccount | undefined, body: unknown) {
  return t.call('POST', '/sandbox/inbound', account, body);
}

async function contactsOf(t: TestApp, account: TestAccount): Promise<any[]> {
  const reply = await t.call('GET', '/accounts/contacts', account);
  expect(reply.status, show(reply.body)).toBe(200);
  return reply.body;
}

/** A group of ALICE and BOB made by a group send, as a client would make it. */
async function makeGroup(t: TestApp, account: TestAccount): Promise<{ groupId: string; line: string }> {
  const sent = await t.call('POST', '/api/send-group-message', account, { numbers: [ALICE, BOB], content: 'hello all' });
  expect(sent.status, show(sent.body)).toBe(202);
  return { groupId: sent.body.group_id, line: sent.body.from_number };
}

describe('POST /sandbox/inbound', () => {
  it('an end user texts the account: 200 with the stored RECEIVED message, in the conversation, with its receive webhook row', async () => {
    const t = makeTestApp();
    const account = await t.createAccount({ receiveWebhook: RECEIVE_WEBHOOK });
    const reply = await inbound(t, account, { number: '+1 (212) 456-7000', content: 'hi, it is me' });

    expect(reply.status, show(reply.body)).toBe(200);
    expect(reply.body).toMatchObject({
      status: 'RECEIVED',
      is_outbound: false,
      content: 'hi, it is me',
      from_number: PERSON,
      number: PERSON,
      message_type: 'message',
      group_id: '',
      error_code: null,
      accountEmail: account.email,
    });
    expect(account.numbers).toContain(reply.body.to_number);

    const [listed] = await listMessages(t, account);
    expect(listed).toMatchObject({ message_handle: reply.body.message_handle, status: 'RECEIVED', is_outbound: false });
    const status = await t.call('GET', `/api/status?handle=${reply.body.message_handle}&history=1`, account);
    expect(status.body.history.map((e: any) => [e.status, e.source, e.applied])).toEqual([['RECEIVED', 'sandbox', true]]);

    const [contact] = await contactsOf(t, account);
    expect(contact).toMatchObject({ phone: PERSON, previewText: 'hi, it is me', is_unread: true, last_date: reply.body.date_sent });
    expect(await payloadsFor(t, reply.body.message_handle)).toEqual([
      expect.objectContaining({
        message_handle: reply.body.message_handle,
        content: 'hi, it is me',
        status: 'RECEIVED',
        from_number: PERSON,
      }),
    ]);
    expect((await outboxFor(t, reply.body.message_handle)).map((row) => row.url)).toEqual([RECEIVE_WEBHOOK]);
  });

  it('writes to the line the person is already pinned to, and takes media without content', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const sent = await t.call('POST', '/api/send-message', account, { number: PERSON, content: 'first' });
    const reply = await inbound(t, account, { number: PERSON, media_url: 'https://cdn.example.com/cat.jpg' });
    expect(reply.status, show(reply.body)).toBe(200);
    expect(reply.body).toMatchObject({ content: '', media_url: 'https://cdn.example.com/cat.jpg', to_number: sent.body.from_number });
  });

  it('a 555-0102 number has no iMessage: its message arrives as SMS', async () => {
    const t = makeTestApp();
    const account = await t.createAccount({ receiveWebhook: RECEIVE_WEBHOOK });
    const reply = await inbound(t, account, { number: CAROL, content: 'sms here' });
    expect(reply.body.was_downgraded).toBe(true);
    expect((await payloadsFor(t, reply.body.message_handle))[0]).toMatchObject({ service: 'SMS', was_downgraded: true });
  });

  it('a member writes in a group: listed under its group_id with the group send', async () => {
    const t = makeTestApp();
    const account = await t.createAccount({ receiveWebhook: RECEIVE_WEBHOOK });
    const { groupId, line } = await makeGroup(t, account);
    const reply = await inbound(t, account, { number: BOB, content: 'count me in', group_id: groupId });

    expect(reply.status, show(reply.body)).toBe(200);
    expect(reply.body).toMatchObject({ status: 'RECEIVED', message_type: 'group', group_id: groupId, from_number: BOB, to_number: line });
    expect([...reply.body.participants].sort()).toEqual([ALICE, BOB, line].sort());
    const listed = await t.call('GET', `/accounts/messages?group_id=${groupId}`, account);
    expect(listed.body.messages.map((m: any) => [m.is_outbound, m.content])).toEqual([
      [false, 'count me in'],
      [true, 'hello all'],
    ]);
    expect((await payloadsFor(t, reply.body.message_handle))[0]).toMatchObject({ message_type: 'group', group_id: groupId, number: BOB });
  });
});

describe('POST /sandbox/inbound refuses bad input and writes nothing', () => {
  const refusals: [string, Record<string, unknown>, number, number][] = [
    ['an invalid number', { number: 'not a number', content: 'x' }, 400, 4000],
    ['a number without its country code', { number: '2124567000', content: 'x' }, 400, 4000],
    ['an emergency number', { number: '911', content: 'x' }, 400, 4002],
    ['no number', { content: 'x' }, 400, 4000],
    ['neither content nor media_url', { number: PERSON }, 400, 4000],
    ['empty content and media_url', { number: PERSON, content: '', media_url: '' }, 400, 4000],
    ['content of 18996 characters', { number: PERSON, content: 'x'.repeat(18_996) }, 400, 4000],
    ['a media_url without a file extension', { number: PERSON, media_url: 'https://cdn.example.com/cat' }, 400, 4000],
    ['an unknown group', { number: ALICE, content: 'x', group_id: 'no-such-group' }, 404, 4040],
  ];
  for (const [name, body, httpStatus, errorCode] of refusals) {
    it(name, async () => {
      const t = makeTestApp();
      const account = await t.createAccount();
      expectMessageError(await inbound(t, account, body), httpStatus, errorCode, { nonEmpty: true });
      expect(await listMessages(t, account)).toEqual([]);
      expect(await contactsOf(t, account)).toEqual([]);
    });
  }

  it('one of the account own lines as the sender', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    expectMessageError(await inbound(t, account, { number: account.numbers[0], content: 'x' }), 400, 4000);
    expect(await listMessages(t, account)).toEqual([]);
  });

  it('malformed JSON', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const reply = await t.app.request('/sandbox/inbound', {
      method: 'POST',
      headers: { ...account.headers, 'content-type': 'application/json' },
      body: '{"number":',
    });
    expect(reply.status).toBe(400);
    expect(await listMessages(t, account)).toEqual([]);
  });

  it('a sender who is not a member of the group', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const { groupId } = await makeGroup(t, account);
    expectMessageError(await inbound(t, account, { number: CAROL, content: 'x', group_id: groupId }), 400, 4000);
    expect((await listMessages(t, account)).map((m) => m.is_outbound)).toEqual([true]);
  });

  it("another account's group is unknown to this one", async () => {
    const t = makeTestApp();
    const owner = await t.createAccount();
    const stranger = await t.createAccount();
    const { groupId } = await makeGroup(t, owner);
    expectMessageError(await inbound(t, stranger, { number: ALICE, content: 'x', group_id: groupId }), 404, 4040);
    expect(await listMessages(t, stranger)).toEqual([]);
    expect((await listMessages(t, owner)).map((m) => m.is_outbound)).toEqual([true]);
  });

  it('missing or wrong credentials: 401 before any validation', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    expectMessageError(await inbound(t, undefined, { number: PERSON, content: 'x' }), 401, 4010);
    const wrong = { ...account, headers: { ...account.headers, 'svc-api-secret-key': 'sk_wrong' } };
    expectMessageError(await inbound(t, wrong, { number: 'garbage' }), 401, 4010);
    expect(await listMessages(t, account)).toEqual([]);
  });

  it('does not exist with the upstream transport', async () => {
    const t = makeTestApp({ transportName: 'upstream' });
    const account = await t.createAccount();
    expectMessageError(await inbound(t, account, { number: PERSON, content: 'x' }), 404, 4040);
    expect(await listMessages(t, account)).toEqual([]);
  });
});
