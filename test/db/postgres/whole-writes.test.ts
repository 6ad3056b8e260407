import { beforeEach, describe, expect, it } from 'vitest';
import { accountEventQueries } from '../../../src/db/postgres/queries/account-events.ts';
import { accountQueries } from '../../../src/db/postgres/queries/accounts.ts';
import { contactQueries } from '../../../src/db/postgres/queries/contacts.ts';
import { messageQueries } from '../../../src/db/postgres/queries/messages.ts';
import { wholeWriteQueries } from '../../../src/db/postgres/queries/whole-writes.ts';
import type { Queries, SendWrite, StatusStepWrite } from '../../../src/db/store.ts';
import {
  ACCOUNT,
  ALICE,
  BOB,
  CAROL,
  LINE,
  message,
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

beforeEach(async () => {
  await seedWorld(twins);
  writes = twinModule(twins, 'wholeWrites', wholeWriteQueries(twins.pg));
  messages = twinModule(twins, 'messages', messageQueries(twins.pg));
  contacts = twinModule(twins, 'contacts', contactQueries(twins.pg));
  accountEvents = twinModule(twins, 'accountEvents', accountEventQueries(twins.pg));
  accounts = twinModule(twins, 'accounts', accountQueries(twins.pg));
});

function sendOf(overrides: Parameters<typeof message>[0], contact?: SendWrite['contact']): SendWrite {
  const row = message(overrides);
  return {
    message: row,
    event: {
      id: `evt_${row.handle}`,
      messageHandle: row.handle,
      status: 'QUEUED',
      errorCode: null,
      errorMessage: null,
      source: 'api',
      applied: true,
      implied: false,
      notAppliedReason: null,
      receivedAt: row.dateSent,
    },
    accountEvent: { accountId: ACCOUNT, type: 'message.created', data: `{"message_handle":"${row.handle}"}`, occurredAt: row.dateSent },
    contact,
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
    event: {
      id: `evt_${handle}_${status}_${at}`,
      messageHandle: handle,
      status,
      errorCode: null,
      errorMessage: null,
      source: 'up',
      sourceEventId,
      applied: true,
      implied: false,
      notAppliedReason: null,
      receivedAt: at,
    },
    accountEvent: { accountId: ACCOUNT, type: 'message.updated', data: `{"status":"${status}"}`, occurredAt: at },
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
});
