import { beforeEach, describe, expect, it } from 'vitest';
import { accountEventQueries } from '../../../src/db/postgres/queries/account-events.ts';
import { accountQueries } from '../../../src/db/postgres/queries/accounts.ts';
import { contactQueries } from '../../../src/db/postgres/queries/contacts.ts';
import { messageQueries } from '../../../src/db/postgres/queries/messages.ts';
import { outboxQueries } from '../../../src/db/postgres/queries/outbox.ts';
import { wholeWriteQueries } from '../../../src/db/postgres/queries/whole-writes.ts';
import type { OutboxEntry, Queries, SendWrite, StatusStepWrite } from '../../../src/db/store.ts';
import { WAITS_FOR_EARLIER_CALLBACK } from '../../../src/domain/delivery-views.ts';
import {
  ACCOUNT,
  ALICE,
  appliedEventOf,
  BOB,
  CAROL,
  contactRow,
  LINE,
  message,
  queuedEventOf,
  seedWorld,
  T0,
  type TwinModule,
  twinModule,
  useTwins,
} from '../../helpers/postgres-twins.ts';

const twins = useTwins();
let writes: TwinModule<Queries['wholeWrites']>;
let messages: TwinModule<Queries['messages']>;
let contacts: TwinModule<Queries['contacts']>;
let accountEvents: TwinModule<Queries['accountEvents']>;
let accounts: TwinModule<Queries['accounts']>;
let outbox: TwinModule<Queries['outbox']>;

beforeEach(async () => {
  await seedWorld(twins);
  writes = twinModule(twins, 'wholeWrites', wholeWriteQueries(twins.pg));
  messages = twinModule(twins, 'messages', messageQueries(twins.pg));
  contacts = twinModule(twins, 'contacts', contactQueries(twins.pg));
  accountEvents = twinModule(twins, 'accountEvents', accountEventQueries(twins.pg));
  accounts = twinModule(twins, 'accounts', accountQueries(twins.pg));
  outbox = twinModule(twins, 'outbox', outboxQueries(twins.pg));
});

function callback(webhookId: string, messageHandle: string, url: string): OutboxEntry {
  return { webhookId, accountId: ACCOUNT, messageHandle, eventType: 'message.status', url, payload: `{"id":"${webhookId}"}` };
}

/** A first send to Carol: her new contact (logged first) and her pin, with the message. */
function firstSendToCarol(callbacks: OutboxEntry[]): SendWrite {
  const row = contactRow('con_carol', CAROL, { accountId: ACCOUNT, createdAt: T0 });
  return {
    ...sendOf({ number: CAROL, contactId: 'con_carol', content: 'hi Carol' }, { id: 'con_carol', previewText: 'hi Carol' }),
    newContact: { row, accountEvent: { accountId: ACCOUNT, type: 'contact.created', data: '{"contact_id":"con_carol"}', occurredAt: T0 } },
    pin: { endUserNumber: CAROL },
    callbacks,
  };
}

/** The account's deliveries, oldest first. */
const deliveries = async () => (await outbox.same((o) => o.listForAccount(ACCOUNT, { limit: 50, offset: 0 }))).reverse();

function sendOf(overrides: Parameters<typeof message>[0], contact?: SendWrite['contact']): SendWrite {
  const row = message(overrides);
  return {
    message: row,
    event: queuedEventOf(row.handle, row.dateSent),
    accountEvent: { accountId: ACCOUNT, type: 'message.created', data: `{"message_handle":"${row.handle}"}`, occurredAt: row.dateSent },
    contact,
    callbacks: [],
  };
}

function stepOf(
  messageId: number,
  handle: string,
  status: 'SENT' | 'DELIVERED',
  at: number,
  sourceEventId: string | null,
): StatusStepWrite {
  return {
    messageId,
    update: { status, errorCode: null, errorMessage: null, wasDowngraded: true, dateUpdated: at },
    event: appliedEventOf({
      id: `evt_${handle}_${status}_${at}`,
      messageHandle: handle,
      status,
      source: 'up',
      sourceEventId,
      receivedAt: at,
    }),
    accountEvent: { accountId: ACCOUNT, type: 'message.updated', data: `{"status":"${status}"}`, occurredAt: at },
    callbacks: [],
  };
}

describe('the whole writes on PostgreSQL', () => {
  it('write a send as SQLite does: the message, its QUEUED event, its account event and its contact summary', async () => {
    const hello = sendOf({ content: 'hello' }, { id: 'con_alice', previewText: 'hello' });
    const sent = await writes.same((w) => w.send(hello));
    expect(sent).toMatchObject({ status: 'QUEUED', content: 'hello', contactId: 'con_alice', wasDowngraded: false, optedOut: false });
    expect(await messages.same((m) => m.findByHandle(ACCOUNT, sent.handle))).toEqual(sent);
    expect((await messages.same((m) => m.history(sent.handle))).map((e) => e.status)).toEqual(['QUEUED']);
    expect(await contacts.same((c) => c.findById(ACCOUNT, 'con_alice'))).toMatchObject({
      lastMessageAt: sent.dateSent,
      lastOutboundAt: sent.dateSent,
      previewText: 'hello',
    });
    // A group send has no contact; an older message never takes the summary back.
    const toGroup = sendOf({ groupId: 'grp_ab', number: '', recipients: [ALICE, BOB] });
    const group = await writes.same((w) => w.send(toGroup));
    expect(group.recipients).toEqual([ALICE, BOB]);
    const late = sendOf({ content: 'late', dateSent: T0 - 5 }, { id: 'con_alice', previewText: 'late' });
    await writes.same((w) => w.send(late));
    expect((await contacts.same((c) => c.findById(ACCOUNT, 'con_alice')))?.previewText).toBe('hello');
    const logged = await accountEvents.same((e) => e.after(ACCOUNT, 0, 10));
    expect(logged.map((e) => e.seq)).toEqual([1, 2, 3]);
  });

  it('write a status step as SQLite does, and write nothing when its event is already recorded', async () => {
    const queued = sendOf({});
    const sent = await writes.same((w) => w.send(queued));
    expect(await writes.same((w) => w.statusStep(stepOf(sent.id, sent.handle, 'SENT', T0 + 100, 'w1')))).toBe(true);
    expect(await messages.same((m) => m.findByHandle(ACCOUNT, sent.handle))).toMatchObject({
      status: 'SENT',
      wasDowngraded: true,
      dateUpdated: T0 + 100,
    });
    // The same event id again: refused, and neither the message nor the account's log moves.
    expect(await writes.same((w) => w.statusStep(stepOf(sent.id, sent.handle, 'DELIVERED', T0 + 200, 'w1')))).toBe(false);
    expect((await messages.same((m) => m.findByHandle(ACCOUNT, sent.handle)))?.status).toBe('SENT');
    expect((await messages.same((m) => m.history(sent.handle))).map((e) => e.status)).toEqual(['QUEUED', 'SENT']);
    expect((await accountEvents.same((e) => e.after(ACCOUNT, 0, 10))).map((e) => e.type)).toEqual(['message.created', 'message.updated']);
  });

  it('find what a report applies to as SQLite does: its event id seen, else the message by either handle', async () => {
    const handedOver = sendOf({ transportHandle: 'up-7', handedOverAt: T0 });
    const sent = await writes.same((w) => w.send(handedOver));
    await writes.same((w) => w.statusStep(stepOf(sent.id, sent.handle, 'SENT', T0 + 100, 'w1')));
    expect(await messages.same((m) => m.findReportTarget(sent.handle, 'up', 'w1'))).toEqual({ seen: true });
    expect(await messages.same((m) => m.findReportTarget('nobody', 'up', 'w1'))).toEqual({ seen: true });
    const byTheirs = await messages.same((m) => m.findReportTarget('up-7', 'up', 'w2'));
    expect(byTheirs).toMatchObject({ seen: false, message: { handle: sent.handle, status: 'SENT' } });
    await messages.same((m) => m.findReportTarget(sent.handle, 'up', null));
    expect(await messages.same((m) => m.findReportTarget('nobody', 'up', null))).toEqual({ seen: false, message: undefined });
  });

  it('read a number’s contact and pin as SQLite does, either or both missing', async () => {
    await accounts.same((a) => a.pinEndUser(ACCOUNT, BOB, LINE, T0));
    await accounts.same((a) => a.pinEndUser(ACCOUNT, CAROL, LINE, T0));
    expect(await contacts.same((c) => c.findWithPin(ACCOUNT, ALICE))).toMatchObject({
      contact: { id: 'con_alice' },
      pinnedLine: undefined,
    });
    expect(await contacts.same((c) => c.findWithPin(ACCOUNT, BOB))).toMatchObject({ contact: { id: 'con_bob' }, pinnedLine: LINE });
    expect(await contacts.same((c) => c.findWithPin(ACCOUNT, CAROL))).toEqual({ contact: undefined, pinnedLine: LINE });
    expect(await contacts.same((c) => c.findWithPin(ACCOUNT, '+14155550199'))).toEqual({ contact: undefined, pinnedLine: undefined });
  });

  it('write a first send as SQLite does: the new contact with its summary, its pin and event, and the callbacks in order', async () => {
    const first = firstSendToCarol([
      { ...callback('wh_contact', 'contact:con_carol', 'https://a.example/hook'), eventType: 'contact.created', signingSecret: 'own' },
      callback('wh_status', 'h-x', 'https://s.example/cb'),
      callback('wh_outbound', 'h-x', 'https://s.example/cb'),
    ]);
    first.callbacks = first.callbacks.map((c) => (c.messageHandle === 'h-x' ? { ...c, messageHandle: first.message.handle } : c));
    const sent = await writes.same((w) => w.send(first));
    expect(sent).toMatchObject({ contactId: 'con_carol', number: CAROL, lineNumber: LINE });
    expect(await contacts.same((c) => c.findWithPin(ACCOUNT, CAROL))).toMatchObject({
      contact: { id: 'con_carol', lastMessageAt: sent.dateSent, lastOutboundAt: sent.dateSent, previewText: 'hi Carol' },
      pinnedLine: LINE,
    });
    // The line counts its new person: the least loaded line is now the other one of the account.
    await twins.seed('service_numbers', [{ number: '+15550000003', accountId: ACCOUNT, createdAt: T0 + 1 }]);
    expect(await accounts.same((a) => a.leastLoadedLine(ACCOUNT))).toBe('+15550000003');
    expect((await accountEvents.same((e) => e.after(ACCOUNT, 0, 10))).map((e) => [e.seq, e.type])).toEqual([
      [1, 'contact.created'],
      [2, 'message.created'],
    ]);
    // The second callback to the same message and URL waits behind the first, as two enqueues would.
    expect((await deliveries()).map((d) => [d.webhookId, d.signingSecret, d.nextAttemptAt === WAITS_FOR_EARLIER_CALLBACK])).toEqual([
      ['wh_contact', 'own', false],
      ['wh_status', null, false],
      ['wh_outbound', null, true],
    ]);
  });

  it('write nothing of a first send whose contact exists meanwhile', async () => {
    await twins.seed('contacts', [{ id: 'con_carol2', accountId: ACCOUNT, phone: CAROL, firstName: 'C', lastName: 'C', createdAt: T0 }]);
    const first = firstSendToCarol([callback('wh_status', 'h-x', 'https://s.example/cb')]);
    expect(() => twins.sqliteDb.$client.transaction(() => twins.sqlite.wholeWrites.send(first))()).toThrow();
    await expect(wholeWriteQueries(twins.pg).send(first)).rejects.toThrow();
    expect(await messages.same((m) => m.findByHandle(ACCOUNT, first.message.handle))).toBeUndefined();
    expect((await contacts.same((c) => c.findWithPin(ACCOUNT, CAROL))).pinnedLine).toBeUndefined();
    expect(await accountEvents.same((e) => e.after(ACCOUNT, 0, 10))).toEqual([]);
    expect(await deliveries()).toEqual([]);
  });

  it('queue a status step’s callbacks as SQLite does: behind the message’s unfinished ones, and not for a refused step', async () => {
    const queued = sendOf({ statusCallback: 'https://s.example/cb' });
    queued.callbacks = [callback('wh_queued', queued.message.handle, 'https://s.example/cb')];
    const sent = await writes.same((w) => w.send(queued));
    const step = stepOf(sent.id, sent.handle, 'SENT', T0 + 100, 'w1');
    step.callbacks = [callback('wh_sent', sent.handle, 'https://s.example/cb'), callback('wh_other', sent.handle, 'https://o.example/cb')];
    expect(await writes.same((w) => w.statusStep(step))).toBe(true);
    const again = {
      ...stepOf(sent.id, sent.handle, 'DELIVERED', T0 + 200, 'w1'),
      callbacks: [callback('wh_again', sent.handle, 'https://s.example/cb')],
    };
    expect(await writes.same((w) => w.statusStep(again))).toBe(false);
    expect((await deliveries()).map((d) => [d.webhookId, d.nextAttemptAt])).toEqual([
      ['wh_queued', sent.dateSent],
      ['wh_sent', WAITS_FOR_EARLIER_CALLBACK],
      ['wh_other', T0 + 100],
    ]);
  });
});
