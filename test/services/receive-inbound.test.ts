import { describe, expect, it } from 'vitest';
import type { AccountRow } from '../../src/db/rows.ts';
import { addReceiveUrl } from '../../src/services/account-webhooks.ts';
import { AppError } from '../../src/services/app-error.ts';
import {
  type InboundMessage,
  type ReceiveOutcome,
  receiveFromTransport,
  receiveInbound,
  type TransportInbound,
  type TransportReceiveOutcome,
} from '../../src/services/receive-inbound.ts';
import { makeTestApp, type TestAccount, type TestApp } from '../helpers/app.ts';
import { accountRow, send, sendGroup } from '../helpers/delivery.ts';
import { ALICE, BOB, CAROL, DAVE, show, UNOWNED_LINE } from '../helpers/fixtures.ts';
import { outboxFor, payloadsFor } from '../helpers/outbox.ts';

/** receiveInbound / receiveFromTransport: an end user's message enters the database, with its receive webhooks. */

const SOURCE = 'test-transport';
const RECEIVE_URL = 'https://hooks.example.com/receive';

function inbound(extra: Partial<InboundMessage> & { groupId?: string } = {}): InboundMessage & { groupId?: string } {
  return { from: ALICE, content: 'hello there', mediaUrl: '', service: 'iMessage', source: SOURCE, ...extra };
}

function fromTransport(toNumber: string, extra: Partial<TransportInbound> = {}): TransportInbound {
  return { from: ALICE, content: 'over the wire', mediaUrl: '', service: 'iMessage', source: SOURCE, toNumber, ...extra };
}

/** The message a routed inbound became (fails the test when it was kept as unrouted). */
function routed(outcome: TransportReceiveOutcome): ReceiveOutcome {
  expect(outcome.routed, 'routed to an account').toBe(true);
  return outcome as ReceiveOutcome;
}

function messagesOf(t: TestApp, account: AccountRow) {
  return t.store.messages.list(account.id, {}, 1_000, 0);
}

async function expectAppError(work: () => Promise<unknown>, code: number): Promise<void> {
  let thrown: unknown;
  try {
    await work();
  } catch (error) {
    thrown = error;
  }
  expect(thrown, show(thrown)).toBeInstanceOf(AppError);
  expect((thrown as AppError).code, (thrown as Error).message).toBe(code);
}

async function contactView(t: TestApp, account: TestAccount, phone: string) {
  const contact = await t.store.contacts.findByPhone((await accountRow(t, account)).id, phone);
  expect(contact, `no contact for ${phone}`).toBeDefined();
  const reply = await t.call('GET', `/accounts/contacts/${contact!.id}`, account);
  expect(reply.status, show(reply.body)).toBe(200);
  return reply.body.contact;
}

/** A sapphire account with one receive webhook. */
async function setUp(input: { receiveWebhook?: string | undefined; numbers?: number } = { receiveWebhook: RECEIVE_URL }) {
  const t = makeTestApp();
  const account = await t.createAccount(input);
  return { t, account, row: await accountRow(t, account) };
}

describe('receiveInbound: one-to-one', () => {
  it('creates the contact, pins the sender to a line and updates the conversation summary', async () => {
    const { t, account, row } = await setUp();
    const { message, created } = await receiveInbound(t.deps, row, inbound());
    expect(created).toBe(true);
    expect(message).toMatchObject({ isOutbound: false, status: 'RECEIVED', messageType: 'message', number: ALICE, content: 'hello there' });
    expect(account.numbers).toContain(message.lineNumber);
    expect(await t.store.accounts.findPinnedLine(row.id, ALICE)).toBe(message.lineNumber);

    const contact = await contactView(t, account, ALICE);
    expect(contact, show(contact)).toMatchObject({
      phone: ALICE,
      previewText: 'hello there',
      last_date: '2026-11-23T09:30:00.000Z',
      is_unread: true,
    });
    expect((await t.store.contacts.findByPhone(row.id, ALICE))!.id).toBe(message.contactId);

    t.clock.advance(60_000);
    const reply = await send(t, account, { number: ALICE, content: 'our answer' });
    expect(reply.from_number, 'our answer goes out on the line the person wrote to').toBe(message.lineNumber);
    const after = await contactView(t, account, ALICE);
    expect(after, show(after)).toMatchObject({ previewText: 'our answer', last_date: '2026-11-23T09:31:00.000Z', is_unread: false });
  });

  it('keeps a person already pinned on their line, and shows a media-only message by its URL', async () => {
    const { t, account, row } = await setUp();
    const line = (await send(t, account, { number: BOB })).from_number;
    t.clock.advance(1_000);
    const { message } = await receiveInbound(t.deps, row, inbound({ from: BOB, content: '', mediaUrl: 'https://cdn.example.com/cat.png' }));
    expect(message.lineNumber).toBe(line);
    const contact = await contactView(t, account, BOB);
    expect(contact, show(contact)).toMatchObject({ previewText: 'https://cdn.example.com/cat.png', is_unread: true });
  });

  it('queues one receive webhook per URL with the contract’s fields', async () => {
    const { t, account, row } = await setUp();
    await addReceiveUrl(t.deps, row.id, 'https://second.example.com/in', t.clock.now() + 1);
    const { message } = await receiveInbound(t.deps, row, inbound({ service: 'SMS' }));

    const rows = await outboxFor(t, message.handle);
    expect(rows.map((r) => [r.eventType, r.url, r.state])).toEqual([
      ['message.received', RECEIVE_URL, 'pending'],
      ['message.received', 'https://second.example.com/in', 'pending'],
    ]);
    expect(rows[0]!.payload).toBe(rows[1]!.payload);
    expect(rows[0]!.webhookId).not.toBe(rows[1]!.webhookId);
    expect(JSON.parse(rows[0]!.payload)).toMatchObject({
      accountEmail: account.email,
      content: 'hello there',
      is_outbound: false,
      media_url: '',
      status: 'RECEIVED',
      message_handle: message.handle,
      date_sent: '2026-11-23T09:30:00.000Z',
      from_number: ALICE,
      number: ALICE,
      to_number: message.lineNumber,
      was_downgraded: true,
      plan: 'sapphire',
      message_type: 'message',
      group_id: '',
      participants: [],
      service: 'SMS',
      group_display_name: '',
    });
  });

  it('queues nothing when the account has no receive webhook', async () => {
    const { t, row } = await setUp({ receiveWebhook: undefined });
    const signals: string[] = [];
    t.notifier.subscribe({ outboxWritten: () => signals.push('outbox') });
    const { message } = await receiveInbound(t.deps, row, inbound());
    expect(message.status).toBe('RECEIVED');
    expect(await outboxFor(t, message.handle)).toEqual([]);
    expect(signals, 'nothing for the dispatcher').toEqual([]);
  });
});

describe('receiveInbound: groups', () => {
  it('stores a member’s message in the group, listed with the group’s sends, with the group fields in the webhook', async () => {
    const { t, account, row } = await setUp();
    const sent = await sendGroup(t, account, { numbers: [ALICE, BOB, CAROL] });
    t.clock.advance(5_000);
    const { message } = await receiveInbound(t.deps, row, inbound({ from: BOB, content: 'reply all', groupId: sent.group_id }));
    expect(message).toMatchObject({ messageType: 'group', groupId: sent.group_id, number: BOB, lineNumber: sent.from_number });

    const listed = await t.call('GET', `/accounts/messages?group_id=${sent.group_id}`, account);
    expect(
      listed.body.messages.map((m: any) => m.message_handle),
      show(listed.body),
    ).toEqual([message.handle, sent.message_handle]);

    const payload = (await payloadsFor(t, message.handle))[0];
    expect(payload, show(payload)).toMatchObject({
      message_type: 'group',
      group_id: sent.group_id,
      number: BOB,
      from_number: BOB,
      to_number: sent.from_number,
      service: 'iMessage',
      was_downgraded: false,
      group_display_name: '',
    });
    expect([...payload.participants].sort()).toEqual([ALICE, BOB, CAROL, sent.from_number].sort());
  });

  it('refuses a sender who is not a member (4000) and another account’s group (4040), writing nothing', async () => {
    const { t, account, row } = await setUp();
    const other = await t.createAccount();
    const ours = await sendGroup(t, account, { numbers: [ALICE, BOB] });
    const theirs = await sendGroup(t, other, { numbers: [ALICE, BOB] });
    const before = (await messagesOf(t, row)).length;

    await expectAppError(() => receiveInbound(t.deps, row, inbound({ from: DAVE, groupId: ours.group_id })), 4000);
    await expectAppError(() => receiveInbound(t.deps, row, inbound({ from: ALICE, groupId: theirs.group_id })), 4040);
    expect(await messagesOf(t, row)).toHaveLength(before);
    expect(await t.store.contacts.findByPhone(row.id, DAVE), 'no contact created for the refused sender').toBeUndefined();
  });
});

describe('receiveFromTransport: which account', () => {
  it('goes to the owner of the line written to, even when another account talked to the sender since', async () => {
    const t = makeTestApp();
    const first = await t.createAccount();
    const second = await t.createAccount();
    await send(t, first, { number: ALICE });
    t.clock.advance(1_000);
    await send(t, second, { number: ALICE });

    const toFirstLine = routed(await receiveFromTransport(t.deps, fromTransport(first.numbers[1]!))).message;
    expect(toFirstLine.accountId).toBe((await accountRow(t, first)).id);
    expect((await messagesOf(t, await accountRow(t, second))).filter((m) => !m.isOutbound)).toEqual([]);
  });

  it('keeps a message to a line no account owns as unrouted, in no account, even one in touch with the sender', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    await send(t, account, { number: ALICE });
    const outcome = await receiveFromTransport(t.deps, fromTransport(UNOWNED_LINE, { transportHandle: 'up-unrouted-1' }));
    expect(outcome).toEqual({ routed: false, created: true });
    expect(
      await receiveFromTransport(t.deps, fromTransport(UNOWNED_LINE, { transportHandle: 'up-unrouted-1' })),
      'a redelivery is kept once',
    ).toEqual({
      routed: false,
      created: false,
    });
    expect((await messagesOf(t, await accountRow(t, account))).filter((m) => !m.isOutbound)).toEqual([]);
    expect((await t.store.unrouted.latest(10)).map((m) => [m.fromNumber, m.toNumber, m.content])).toEqual([
      [ALICE, UNOWNED_LINE, 'over the wire'],
    ]);
  });

  it('stores one message for one transport handle delivered twice', async () => {
    const { t, account, row } = await setUp();
    const first = routed(await receiveFromTransport(t.deps, fromTransport(account.numbers[0]!, { transportHandle: 'up-msg-1' })));
    t.clock.advance(1_000);
    const again = routed(await receiveFromTransport(t.deps, fromTransport(account.numbers[0]!, { transportHandle: 'up-msg-1' })));
    expect([first.created, again.created]).toEqual([true, false]);
    expect(again.message.handle).toBe(first.message.handle);
    expect(await messagesOf(t, row)).toHaveLength(1);
    expect(await outboxFor(t, first.message.handle)).toHaveLength(1);
  });

  it('stores a message on the line the sender wrote to', async () => {
    const { t, account } = await setUp({ receiveWebhook: RECEIVE_URL, numbers: 2 });
    // BOB takes the least-loaded line first, so the other line is the one ALICE's message names.
    const bobLine = (await send(t, account, { number: BOB })).from_number;
    const aliceWroteTo = account.numbers.find((line) => line !== bobLine)!;
    await send(t, account, { number: CAROL });
    const { message } = routed(await receiveFromTransport(t.deps, fromTransport(aliceWroteTo)));
    expect(message.lineNumber, `ALICE wrote to ${aliceWroteTo}`).toBe(aliceWroteTo);
    expect((await payloadsFor(t, message.handle))[0].to_number).toBe(aliceWroteTo);
  });
});

describe('receiveFromTransport: groups', () => {
  it('adopts the account’s group with the same people for an unknown transport group id, and keeps using it', async () => {
    const { t, account, row } = await setUp();
    const sent = await sendGroup(t, account, { numbers: [ALICE, BOB] });
    const line = sent.from_number as string;
    const first = routed(
      await receiveFromTransport(
        t.deps,
        fromTransport(line, { from: ALICE, transportGroupId: 'up-group-7', participants: [ALICE, BOB, line] }),
      ),
    ).message;
    expect(first.groupId).toBe(sent.group_id);
    expect((await t.store.groups.findById(row.id, sent.group_id))!.transportGroupId).toBe('up-group-7');

    const second = routed(await receiveFromTransport(t.deps, fromTransport(line, { from: BOB, transportGroupId: 'up-group-7' }))).message;
    expect([second.groupId, second.accountId]).toEqual([sent.group_id, row.id]);
  });

  it('creates a group for new people under the transport’s id; later messages and sends to the same people use it', async () => {
    const { t, account, row } = await setUp();
    // CAROL is pinned to one line; the transport's group chat is on the other.
    const carolLine = (await send(t, account, { number: CAROL })).from_number;
    const line = account.numbers.find((number) => number !== carolLine)!;
    const first = routed(
      await receiveFromTransport(
        t.deps,
        fromTransport(line, { from: CAROL, transportGroupId: 'up-group-9', participants: [CAROL, DAVE, line] }),
      ),
    ).message;
    expect(first.groupId).not.toBeNull();
    const group = (await t.store.groups.findById(row.id, first.groupId!))!;
    expect(group.transportGroupId).toBe('up-group-9');
    expect([...(await t.store.groups.members(group.id))].sort()).toEqual([CAROL, DAVE]);
    expect(group.lineNumber, 'the group lives on the line its members wrote to').toBe(line);
    expect(await t.store.contacts.findByPhone(row.id, DAVE), 'members become contacts').toBeDefined();

    const second = routed(await receiveFromTransport(t.deps, fromTransport(line, { from: DAVE, transportGroupId: 'up-group-9' }))).message;
    expect(second.groupId).toBe(group.id);
    const ourSend = await sendGroup(t, account, { numbers: [DAVE, CAROL] });
    expect(ourSend.group_id, 'sent and received messages list together under one group_id').toBe(group.id);
    const payload = (await payloadsFor(t, second.handle))[0];
    expect([...payload.participants].sort()).toEqual([CAROL, DAVE, line].sort());
  });
});

describe('receiveFromTransport: a group of nobody but the account', () => {
  it('keeps a group message whose only members are the account’s own lines as unrouted, making no group', async () => {
    const { t, account, row } = await setUp();
    const [line, other] = account.numbers as [string, string];
    const unrouted = await t.store.unrouted.count();
    const own = await receiveFromTransport(t.deps, fromTransport(line, { from: line, transportGroupId: 'up-self', participants: [line] }));
    expect(own).toEqual({ routed: false, created: true });
    const lines = await receiveFromTransport(
      t.deps,
      fromTransport(line, { from: other, transportGroupId: 'up-lines', participants: [line, other], transportHandle: 'up-lines-1' }),
    );
    expect(lines).toEqual({ routed: false, created: true });
    expect(await t.store.unrouted.count()).toBe(unrouted + 2);
    expect(await t.store.groups.findByTransportGroupId(row.id, 'up-self')).toBeUndefined();
    expect(await t.store.groups.findByTransportGroupId(row.id, 'up-lines')).toBeUndefined();
    expect(await messagesOf(t, row)).toEqual([]);
    // A person's message in the same chat still makes the group.
    const person = routed(
      await receiveFromTransport(
        t.deps,
        fromTransport(line, { from: ALICE, transportGroupId: 'up-self', participants: [line, ALICE, BOB] }),
      ),
    );
    expect([...(await t.store.groups.members(person.message.groupId!))].sort()).toEqual([ALICE, BOB]);
  });
});
