import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import type { OutboxEntry, SendWrite, StatusStepWrite, Store } from '../../src/db/store.ts';
import { WAITS_FOR_EARLIER_CALLBACK } from '../../src/domain/delivery-views.ts';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { accountRow, appliedEventOf, contactRow, message, queuedEventOf, T0 } from '../helpers/postgres-twins.ts';

/**
 * A batch of whole writes (sendMany, statusStepMany) writes exactly what the same calls one by
 * one write, on either backend: two fresh databases, the same calls, the same rows.
 */

const A = 'acc_a';
const B = 'acc_b';
const [LINE_A1, LINE_A2, LINE_B] = ['+15550000011', '+15550000012', '+15550000021'];
const [ALICE, BOB, CAROL, DAVE, ERIN] = ['+14155550100', '+14155550101', '+14155550102', '+14155550103', '+14155550104'];
const HOOK = 'https://hooks.example/cb';

async function seeded(): Promise<TestApp> {
  const t = makeTestApp();
  await t.store.transaction(async (tx) => {
    await tx.accounts.insertAccount(accountRow(A, T0));
    await tx.accounts.insertAccount(accountRow(B, T0));
    await tx.accounts.insertServiceNumber(A, LINE_A1, T0);
    await tx.accounts.insertServiceNumber(A, LINE_A2, T0 + 1);
    await tx.accounts.insertServiceNumber(B, LINE_B, T0);
    await tx.contacts.insert(contactRow('con_alice', ALICE, { accountId: A, createdAt: T0 }));
    await tx.contacts.insert(contactRow('con_dave', DAVE, { accountId: B, createdAt: T0 }));
  });
  return t;
}

const callback = (webhookId: string, accountId: string, messageHandle: string, url = HOOK): OutboxEntry => ({
  webhookId,
  accountId,
  messageHandle,
  eventType: 'message.status',
  url,
  payload: `{"id":"${webhookId}"}`,
});

/** A send of `accountId` to `number` (its contact `contact`, none for a group), at T0 + `after`. */
function sendOf(accountId: string, lineNumber: string, number: string, contactId: string | null, after: number): SendWrite {
  const row = message({ accountId, lineNumber, number, contactId, dateSent: T0 + after, dateUpdated: T0 + after });
  return {
    message: row,
    event: queuedEventOf(row.handle, T0 + after),
    accountEvent: { accountId, type: 'message.created', data: `{"message_handle":"${row.handle}"}`, occurredAt: T0 + after },
    contact: contactId === null ? undefined : { id: contactId, previewText: row.content ?? '' },
    callbacks: [],
  };
}

/** A first send to a person: their new contact (logged first) and their pin to the message's line. */
function firstSendOf(accountId: string, lineNumber: string, number: string, contactId: string, after: number): SendWrite {
  const write = sendOf(accountId, lineNumber, number, contactId, after);
  return {
    ...write,
    newContact: {
      row: contactRow(contactId, number, { accountId, createdAt: T0 + after, tags: ['new'], customVariables: { k: 'v' } }),
      accountEvent: { accountId, type: 'contact.created', data: `{"contact_id":"${contactId}"}`, occurredAt: T0 + after },
    },
    pin: { endUserNumber: number },
  };
}

/** Sends of two accounts: known and new contacts, pins, a group, an older message, callbacks in one line. */
function sends(): SendWrite[] {
  const toAlice = sendOf(A, LINE_A1, ALICE, 'con_alice', 100);
  toAlice.callbacks = [callback('wh_1', A, toAlice.message.handle)];
  const toCarol = firstSendOf(A, LINE_A1, CAROL, 'con_carol', 110);
  toCarol.callbacks = [
    { ...callback('wh_2', A, 'contact:con_carol', 'https://account.example/hook'), eventType: 'contact.created', signingSecret: 'own' },
    callback('wh_3', A, toCarol.message.handle),
    callback('wh_4', A, toCarol.message.handle),
  ];
  const toDave = { ...sendOf(B, LINE_B, DAVE, 'con_dave', 120), pin: { endUserNumber: DAVE } };
  const toGroup = sendOf(A, LINE_A2, '', null, 130);
  toGroup.message = { ...toGroup.message, messageType: 'group', recipients: [ALICE, BOB] };
  toGroup.callbacks = [callback('wh_5', A, toGroup.message.handle)];
  const olderToAlice = sendOf(A, LINE_A1, ALICE, 'con_alice', 50);
  const toErin = firstSendOf(B, LINE_B, ERIN, 'con_erin', 140);
  const againToAlice = sendOf(A, LINE_A1, ALICE, 'con_alice', 100);
  return [toAlice, toCarol, toDave, toGroup, olderToAlice, toErin, againToAlice];
}

/** Rows of a table as the test backend reads them raw (every column but the writing transaction's id). */
async function rows(t: TestApp, query: string): Promise<unknown[]> {
  if (t.postgres === undefined) return t.db.$client.prepare(query).all();
  return [...(await (await t.postgres).execute(sql.raw(query)))];
}

/** Every row a whole write may touch, in a stable order. */
async function written(t: TestApp) {
  return {
    messages: await rows(t, 'select * from messages order by id'),
    // In insertion order: PostgreSQL numbers the events (seq) where SQLite has its rowid.
    statusEvents: await rows(
      t,
      `select id, message_handle, status, error_code, error_message, source, source_event_id, applied, implied, not_applied_reason, received_at, repeats from status_events order by ${t.postgres === undefined ? 'rowid' : 'seq'}`,
    ),
    accountEvents: await rows(t, 'select * from account_events order by id'),
    counters: await rows(t, 'select * from account_event_counters order by account_id'),
    contacts: await rows(t, 'select * from contacts order by id'),
    pins: await rows(t, 'select * from number_pins order by account_id, end_user_number'),
    lines: await rows(t, 'select number, pinned_count from service_numbers order by number'),
    outbox: await rows(t, 'select * from webhook_deliveries order by seq'),
  };
}

const sendAlone = (store: Store, write: SendWrite) => store.transaction((tx) => tx.wholeWrites.send(write));
const stepAlone = (store: Store, step: StatusStepWrite) => store.transaction((tx) => tx.wholeWrites.statusStep(step));

function stepOf(messageId: number, handle: string, accountId: string, status: 'SENT' | 'DELIVERED', at: number, sourceEventId: string) {
  return {
    messageId,
    update: { status, errorCode: null, errorMessage: null, wasDowngraded: status === 'DELIVERED', dateUpdated: at },
    event: appliedEventOf({
      id: `evt_${handle}_${status}_${sourceEventId}`,
      messageHandle: handle,
      status,
      source: 'up',
      sourceEventId,
      receivedAt: at,
    }),
    accountEvent: { accountId, type: 'message.updated', data: `{"message_handle":"${handle}","status":"${status}"}`, occurredAt: at },
    callbacks: [callback(`wh_${handle}_${status}_${sourceEventId}`, accountId, handle)],
  } satisfies StatusStepWrite;
}

describe('whole writes in batches', () => {
  it('write a batch of sends as the same sends one by one would, answering their messages in order', async () => {
    const calls = sends();
    const [batched, oneByOne] = [await seeded(), await seeded()];
    const answers = await batched.store.transaction((tx) => tx.wholeWrites.sendMany(calls.map((write) => [write])));
    const alone = [];
    for (const write of calls) alone.push(await sendAlone(oneByOne.store, write));
    expect(answers).toEqual(alone);
    expect(answers.map((m) => m.handle)).toEqual(calls.map((c) => c.message.handle));
    const rowsOfBatch = await written(batched);
    expect(rowsOfBatch).toEqual(await written(oneByOne));

    // What a user would check: each account's log numbered in order, a new contact's event first.
    const events = async (accountId: string) =>
      (await batched.store.accountEvents.after(accountId, 0, 20)).map((e) => [e.seq, e.type, e.data.slice(0, 22)]);
    expect(await events(A)).toEqual([
      [1, 'message.created', `{"message_handle":"${calls[0]!.message.handle}`.slice(0, 22)],
      [2, 'contact.created', '{"contact_id":"con_car'],
      [3, 'message.created', `{"message_handle":"${calls[1]!.message.handle}`.slice(0, 22)],
      [4, 'message.created', `{"message_handle":"${calls[3]!.message.handle}`.slice(0, 22)],
      [5, 'message.created', `{"message_handle":"${calls[4]!.message.handle}`.slice(0, 22)],
      [6, 'message.created', `{"message_handle":"${calls[6]!.message.handle}`.slice(0, 22)],
    ]);
    expect((await events(B)).map(([seq, type]) => [seq, type])).toEqual([
      [1, 'message.created'],
      [2, 'contact.created'],
      [3, 'message.created'],
    ]);
    // The older message leaves Alice's summary; of two at the same time, the later send's stands.
    expect(await batched.store.contacts.findById(A, 'con_alice')).toMatchObject({
      lastMessageAt: T0 + 100,
      lastOutboundAt: T0 + 100,
      previewText: calls[6]!.message.content,
    });
    expect(await batched.store.contacts.findWithPin(A, CAROL)).toMatchObject({
      contact: { id: 'con_carol', lastMessageAt: T0 + 110, tags: ['new'] },
      pinnedLine: LINE_A1,
    });
    expect(await batched.store.contacts.findWithPin(B, DAVE)).toMatchObject({ pinnedLine: LINE_B });
    expect(await batched.store.contacts.findWithPin(B, ERIN)).toMatchObject({ contact: { id: 'con_erin' }, pinnedLine: LINE_B });
    // The pins count on their lines: A's first line has one person, so the second is now the least loaded.
    expect(await batched.store.accounts.leastLoadedLine(A)).toBe(LINE_A2);
    const deliveries = (await batched.store.outbox.listAll({ limit: 20, offset: 0 })).reverse();
    expect(deliveries.map((d) => [d.webhookId, d.nextAttemptAt === WAITS_FOR_EARLIER_CALLBACK])).toEqual([
      ['wh_1', false],
      ['wh_2', false],
      ['wh_3', false],
      ['wh_4', true],
      ['wh_5', false],
    ]);
  });

  it('refuse only the status steps whose event is recorded already, moving nothing back, answers in order', async () => {
    const setup = sends().slice(0, 3);
    const [batched, oneByOne] = [await seeded(), await seeded()];
    const steps = async (t: TestApp) => {
      const [toAlice, toCarol, toDave] = [
        await sendAlone(t.store, setup[0]!),
        await sendAlone(t.store, setup[1]!),
        await sendAlone(t.store, setup[2]!),
      ];
      expect(await stepAlone(t.store, stepOf(toAlice.id, toAlice.handle, A, 'SENT', T0 + 200, 'w0'))).toBe(true);
      return [
        stepOf(toAlice.id, toAlice.handle, A, 'DELIVERED', T0 + 300, 'w1'),
        // The reporter's event id of Alice's SENT again: recorded already, so Carol's message stays QUEUED.
        stepOf(toCarol.id, toCarol.handle, A, 'SENT', T0 + 300, 'w0'),
        stepOf(toDave.id, toDave.handle, B, 'SENT', T0 + 310, 'w3'),
        // Alice's SENT under another id: her message has it applied already, and stays DELIVERED.
        stepOf(toAlice.id, toAlice.handle, A, 'SENT', T0 + 320, 'w4'),
        // Dave's event of this batch again: only its first step counts.
        stepOf(toDave.id, toDave.handle, B, 'DELIVERED', T0 + 330, 'w3'),
        stepOf(toCarol.id, toCarol.handle, A, 'SENT', T0 + 340, 'w5'),
      ];
    };
    const calls = await steps(batched);
    const answers = await batched.store.transaction((tx) => tx.wholeWrites.statusStepMany(calls.map((step) => [step])));
    const alone = [];
    for (const step of await steps(oneByOne)) alone.push(await stepAlone(oneByOne.store, step));
    expect(answers).toEqual([true, false, true, false, false, true]);
    expect(answers).toEqual(alone);
    expect(await written(batched)).toEqual(await written(oneByOne));
    expect((await batched.store.messages.findByHandle(A, setup[0]!.message.handle))?.status).toBe('DELIVERED');
    expect((await batched.store.messages.findByHandle(A, setup[1]!.message.handle))?.status).toBe('SENT');
    expect((await batched.store.accountEvents.after(B, 0, 20)).map((e) => [e.seq, e.type])).toEqual([
      [1, 'message.created'],
      [2, 'message.updated'],
    ]);
  });

  it('answer nothing for an empty batch', async () => {
    const t = await seeded();
    expect(await t.store.wholeWrites.sendMany([])).toEqual([]);
    expect(await t.store.wholeWrites.statusStepMany([])).toEqual([]);
  });
});
