import { describe, expect, it } from 'vitest';
import { statusCommand } from '../../src/cli/status.ts';
import { addReceiveUrl } from '../../src/services/account-webhooks.ts';
import { recordHandover } from '../../src/services/handover.ts';
import { makeTestApp, type TestAccount, type TestApp } from '../helpers/app.ts';
import { accountRow, send, sendGroup } from '../helpers/delivery.ts';
import { expectMessageError, listMessages } from '../helpers/expect.ts';
import { ALICE, BOB, CAROL, show, UNOWNED_LINE } from '../helpers/fixtures.ts';
import { INGEST_SECRET, postIngest } from '../helpers/ingest.ts';
import { payloadsFor } from '../helpers/outbox.ts';
import { rowCounts } from '../helpers/row-counts.ts';

/**
 * POST /webhooks/receive: an end user's message reported by the transport is stored once, in
 * the right conversation; a transport group id is correlated to our group, so what we send to a
 * group and what its members write list under one group_id.
 */

/** A line of the upstream's, not ours: what an upstream reports as to_number. */
const RECEIVE_HOOK = 'https://client.example.com/inbound';

async function setup() {
  const t = makeTestApp({ ingestSecrets: [INGEST_SECRET], transportName: 'upstream' });
  const account = await t.createAccount();
  await addReceiveUrl(t.deps, (await accountRow(t, account)).id, RECEIVE_HOOK, t.clock.now());
  return { t, account, line: account.numbers[0]! };
}

function inbound(handle: string, from: string, toNumber: string, extra: Record<string, unknown> = {}) {
  return {
    message_handle: handle,
    number: from,
    from_number: from,
    to_number: toNumber,
    content: `from ${from}`,
    is_outbound: false,
    status: 'RECEIVED',
    ...extra,
  };
}

async function receive(t: TestApp, body: unknown) {
  return postIngest(t, '/webhooks/receive', body, { 'svc-signing-secret': INGEST_SECRET });
}

async function expectOk(t: TestApp, body: unknown) {
  const reply = await receive(t, body);
  expect(reply.status, show(reply.body)).toBe(200);
  expect(reply.body).toEqual({ status: 'OK' });
}

async function listGroup(t: TestApp, account: TestAccount, groupId: string) {
  const listed = await t.call('GET', `/accounts/messages?group_id=${groupId}`, account);
  expect(listed.status, show(listed.body)).toBe(200);
  return listed.body.messages as any[];
}

describe('POST /webhooks/receive, one-to-one', () => {
  it('stores the message for the account owning to_number, in the sender’s conversation, with its receive webhook', async () => {
    const { t, account, line } = await setup();
    await expectOk(t, inbound('up-in-1', ALICE, line, { content: 'hello there', service: 'SMS' }));

    const [message, ...rest] = await listMessages(t, account);
    expect(rest).toEqual([]);
    expect(message, show(message)).toMatchObject({
      is_outbound: false,
      status: 'RECEIVED',
      content: 'hello there',
      number: ALICE,
      from_number: ALICE,
      to_number: line,
      group_id: '',
      was_downgraded: true,
    });

    const contacts = await t.call('GET', '/accounts/contacts', account);
    expect(contacts.body, show(contacts.body)).toMatchObject([{ phone: ALICE, previewText: 'hello there', is_unread: true }]);
    const [hook] = await payloadsFor(t, message.message_handle);
    expect(hook, show(hook)).toMatchObject({
      message_handle: message.message_handle,
      number: ALICE,
      content: 'hello there',
      service: 'SMS',
      group_id: '',
    });
  });

  it('stores a redelivered message (same message_handle) once', async () => {
    const { t, account, line } = await setup();
    await expectOk(t, inbound('up-in-twice', ALICE, line));
    const before = await rowCounts(t);
    await expectOk(t, inbound('up-in-twice', ALICE, line));
    expect(await rowCounts(t)).toEqual(before);
    expect(await listMessages(t, account)).toHaveLength(1);
  });

  it('takes from_number when number is absent', async () => {
    const { t, account, line } = await setup();
    const { number: _, ...body } = inbound('up-in-from', BOB, line);
    await expectOk(t, body);
    expect((await listMessages(t, account))[0]).toMatchObject({ number: BOB });
  });

  it('keeps a message to a line no account owns as unrouted (202): in no account, not even the one that last wrote to the sender', async () => {
    const { t, account } = await setup();
    const other = await t.createAccount();
    await send(t, account, { number: CAROL });
    const before = await rowCounts(t);

    const reply = await receive(t, inbound('up-in-2', CAROL, UNOWNED_LINE, { content: 'reply' }));
    expect(reply.status, show(reply.body)).toBe(202);
    expect(reply.body).toEqual({ status: 'OK' });
    expect(await rowCounts(t), 'only the unrouted table grew').toEqual({ ...before, unrouted_inbound: before.unrouted_inbound! + 1 });

    expect((await listMessages(t, account)).map((m) => [m.is_outbound, m.number])).toEqual([[true, CAROL]]);
    expect(await listMessages(t, other)).toEqual([]);
    const status = (await statusCommand(t.deps)).value as { unrouted_inbound: unknown };
    expect(status.unrouted_inbound, show(status)).toMatchObject({
      total: 1,
      latest: [{ from_number: CAROL, to_number: UNOWNED_LINE, content: 'reply' }],
    });
    const metrics = await t.app.request('/metrics');
    expect(await metrics.text()).toMatch(/^textrelay_unrouted_inbound_messages 1$/m);
  });

  it('keeps a redelivered unrouted message once', async () => {
    const { t } = await setup();
    expect((await receive(t, inbound('up-stranger', ALICE, UNOWNED_LINE))).status).toBe(202);
    const before = await rowCounts(t);
    expect((await receive(t, inbound('up-stranger', ALICE, UNOWNED_LINE))).status).toBe(202);
    expect(await rowCounts(t)).toEqual(before);
  });
});

describe('POST /webhooks/receive, groups', () => {
  it('adopts our group with the same people for an unknown transport group_id; sends and receives list together', async () => {
    const { t, account, line } = await setup();
    const sent = await sendGroup(t, account, { numbers: [ALICE, BOB] });

    // A provider that reports our own line as to_number lists it among the participants too.
    await expectOk(
      t,
      inbound('up-g-in-1', ALICE, line, { group_id: 'up-group-1', participants: [ALICE, BOB, line], message_type: 'group' }),
    );

    const listed = await listGroup(t, account, sent.group_id);
    expect(
      listed.map((m) => [m.is_outbound, m.message_type]),
      show(listed),
    ).toEqual([
      [false, 'group'],
      [true, 'group'],
    ]);
    expect((await t.store.groups.findByTransportGroupId((await accountRow(t, account)).id, 'up-group-1'))?.id).toBe(sent.group_id);
    const hook = (await payloadsFor(t, listed[0].message_handle))[0];
    expect(hook, show(hook)).toMatchObject({ group_id: sent.group_id, message_type: 'group', number: ALICE });
    expect([...hook.participants].sort()).toEqual([ALICE, BOB, sent.from_number].sort());
  });

  it('creates our group from participants when none matches, and our later sends to it list with the receives', async () => {
    const { t, account, line } = await setup();
    await expectOk(t, inbound('up-g-in-2', BOB, line, { group_id: 'up-group-2', participants: [ALICE, BOB, CAROL, line] }));
    const [received] = await listMessages(t, account);
    expect(received, show(received)).toMatchObject({ message_type: 'group', number: BOB });
    const groupId: string = received.group_id;
    expect(groupId).toMatch(/^[0-9a-f-]{36}$/);

    const byNumbers = await sendGroup(t, account, { numbers: [CAROL, BOB, ALICE] });
    expect(byNumbers.group_id, 'a send to the same people is the same group').toBe(groupId);
    const reply = await t.call('POST', '/api/send-group-message', account, { group_id: groupId, content: 'to the group' });
    expect(reply.status, show(reply.body)).toBe(202);
    await expectOk(t, inbound('up-g-in-3', CAROL, line, { group_id: 'up-group-2', participants: [ALICE, BOB, CAROL, line] }));

    const listed = await listGroup(t, account, groupId);
    // Newest first: CAROL's reply, our two sends, BOB's first message.
    expect(
      listed.map((m) => (m.is_outbound ? m.content : m.number)),
      show(listed),
    ).toEqual([CAROL, 'to the group', 'hello all', BOB]);
  });

  it('maps the group id the transport answered a group send with, so its members’ replies land in our group', async () => {
    const { t, account } = await setup();
    const sent = await sendGroup(t, account, { numbers: [ALICE, BOB] });
    await recordHandover(t.deps, sent.message_handle, { transportHandle: 'up-out-g', transportGroupId: 'up-group-3' });

    await expectOk(
      t,
      inbound('up-g-in-4', BOB, sent.from_number, { group_id: 'up-group-3', participants: [ALICE, BOB, sent.from_number] }),
    );
    expect((await listGroup(t, account, sent.group_id)).map((m) => m.is_outbound)).toEqual([false, true]);
  });

  it('refuses (400, nothing written) a message in a known group from someone who is not a member', async () => {
    const { t, account } = await setup();
    const sent = await sendGroup(t, account, { numbers: [ALICE, BOB] });
    await recordHandover(t.deps, sent.message_handle, { transportHandle: 'up-out-g2', transportGroupId: 'up-group-4' });
    const before = await rowCounts(t);
    expectMessageError(await receive(t, inbound('up-g-in-5', CAROL, sent.from_number, { group_id: 'up-group-4' })), 400, 4000);
    expect(await rowCounts(t)).toEqual(before);
  });
});

describe('POST /webhooks/receive, numbers as the transport spells them', () => {
  it.each<[string, (line: string) => [string, string]]>([
    ['digits with the country code but no "+"', (line) => [line.slice(1), '14155550100']],
    [
      'separators and a national number',
      (line) => [`+${line.slice(1, 2)} (${line.slice(2, 5)}) ${line.slice(5, 8)}-${line.slice(8)}`, '(415) 555-0100'],
    ],
    ['the international prefix 00', (line) => [`00${line.slice(1)}`, '00 1 415 555 0100']],
  ])('stores a message whose numbers are written as %s under their E.164 form', async (_, spell) => {
    const { t, account, line } = await setup();
    const [toNumber, from] = spell(line);
    await expectOk(t, inbound('up-spelt', from, toNumber, { content: 'spelt' }));
    const [message, ...rest] = await listMessages(t, account);
    expect(rest).toEqual([]);
    expect(message, show(message)).toMatchObject({ content: 'spelt', number: ALICE, to_number: line, is_outbound: false });
  });

  it('normalises the participants of a group message, finding the group of those people', async () => {
    const { t, account, line } = await setup();
    const sent = await sendGroup(t, account, { numbers: [ALICE, BOB] });
    const participants = [ALICE.slice(1), BOB.slice(1), line.slice(1)];
    await expectOk(t, inbound('up-spelt-group', ALICE.slice(1), line.slice(1), { group_id: 'up-spelt', participants }));
    expect((await listGroup(t, account, sent.group_id)).map((m) => m.is_outbound)).toEqual([false, true]);
  });

  it.each<[string, (line: string) => unknown]>([
    ['a to_number that is no number', () => inbound('x', ALICE, 'our line')],
    ['a sender that is no number', (line) => inbound('x', 'sender', line)],
    ['a short-code sender', (line) => inbound('x', '911', line)],
    ['a participant that is no number', (line) => inbound('x', ALICE, line, { group_id: 'g', participants: [ALICE, 'bob'] })],
  ])('keeps a message with %s as unrouted (202), in no account', async (_, body) => {
    const { t, account, line } = await setup();
    const before = await rowCounts(t);
    const reply = await receive(t, body(line));
    expect(reply.status, show(reply.body)).toBe(202);
    expect(await rowCounts(t), 'only the unrouted table grew').toEqual({ ...before, unrouted_inbound: before.unrouted_inbound! + 1 });
    expect(await listMessages(t, account)).toEqual([]);
  });
});

describe('POST /webhooks/receive, bad payloads', () => {
  it.each<[string, (line: string) => unknown]>([
    ['no sender', (line) => ({ message_handle: 'x', to_number: line, content: 'hi' })],
    ['no to_number', () => ({ message_handle: 'x', number: ALICE, content: 'hi' })],
    ['no message_handle', (line) => ({ number: ALICE, to_number: line, content: 'hi' })],
    ['neither content nor media_url', (line) => inbound('x', ALICE, line, { content: '' })],
    ['an unknown service', (line) => inbound('x', ALICE, line, { service: 'RCS' })],
    ['a media_url that is not a URL', (line) => inbound('x', ALICE, line, { media_url: 'cat.png' })],
    ['a number as content', (line) => inbound('x', ALICE, line, { content: 42 })],
  ])('refuses %s with 400 and writes nothing', async (_, body) => {
    const { t, line } = await setup();
    const before = await rowCounts(t);
    const reply = await receive(t, body(line));
    expectMessageError(reply, 400, 4000, { nonEmpty: true });
    expect(await rowCounts(t)).toEqual(before);
  });
});
