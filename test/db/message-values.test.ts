import { desc } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { messages } from '../../src/db/schema.ts';
import { messageRowJson } from '../../src/domain/message-row-view.ts';
import { listRecordJson } from '../../src/domain/views.ts';
import { recordHandover } from '../../src/services/handover.ts';
import { receiveInbound } from '../../src/services/receive-inbound.ts';
import { recordStatus } from '../../src/services/record-status.ts';
import { makeTestApp } from '../helpers/app.ts';
import { accountRow, send, sendGroup } from '../helpers/delivery.ts';
import { ALICE, BOB } from '../helpers/fixtures.ts';

/** Listings map rows from arrays by hand (src/db/sqlite/queries/message-values.ts): they must read exactly what drizzle reads. */
describe('message rows read for listings', () => {
  it('equal the rows drizzle maps, for every kind of message and every optional column set or not', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const row = await accountRow(t, account);

    const delivered = (
      await send(t, account, {
        content: 'with a callback',
        mediaUrl: 'https://example.com/cat.png',
        sendStyle: 'celebration',
      })
    ).message_handle;
    await recordHandover(t.deps, delivered, { transportHandle: 'up-1' });
    await recordStatus(t.deps, { handle: delivered, status: 'DELIVERED', wasDowngraded: true, source: 'test' });
    const failed = (await send(t, account, { number: BOB, statusCallback: undefined })).message_handle;
    await recordStatus(t.deps, { handle: failed, status: 'ERROR', errorCode: 10001, errorMessage: 'no route', source: 'test' });
    const group = await sendGroup(t, account);
    await receiveInbound(t.deps, row, {
      from: ALICE,
      content: 'reply in the group',
      mediaUrl: '',
      service: 'iMessage',
      source: 'test',
      groupId: group.group_id!,
    });
    await receiveInbound(t.deps, row, { from: BOB, content: 'a direct reply', mediaUrl: '', service: 'SMS', source: 'test' });

    const byDrizzle = t.db.select().from(messages).orderBy(desc(messages.dateSent), desc(messages.id)).all();
    expect(byDrizzle).toHaveLength(5);
    expect(await t.store.messages.list(row.id, {}, 50, 0)).toEqual(byDrizzle);
    // The other shape: a number's own conversation merged with its groups.
    expect(await t.store.messages.list(row.id, { number: ALICE }, 50, 0)).toEqual(
      byDrizzle.filter((message) => message.number === ALICE || message.groupId !== null),
    );
    // The listings' JSON, written by SQLite, is the domain views' of the same rows.
    expect(await t.store.messages.listJson(row.id, {}, 50, 0, row)).toBe(
      `[${byDrizzle.map((message) => listRecordJson(message, row)).join(',')}]`,
    );
    const stored = await t.store.groups.findById(row.id, group.group_id!);
    const members = await t.store.groups.members(group.group_id!);
    expect(await t.store.messagesV2.listJson(row.id, {}, { by: 'sent', direction: 'desc' }, 50, 0, row)).toEqual(
      byDrizzle.map((message) => {
        const inGroup = message.groupId === group.group_id;
        const participants = !inGroup
          ? [message.number, message.lineNumber]
          : [...(message.isOutbound ? (message.recipients ?? []) : members), message.lineNumber];
        return messageRowJson(message, row, { groupDisplayName: inGroup ? stored!.displayName : null, participants });
      }),
    );
  });

  it('as an insert answers them, equal the rows drizzle reads back, every optional column given or not', async () => {
    const t = makeTestApp();
    const account = await accountRow(t, await t.createAccount());
    const base = {
      accountId: account.id,
      isOutbound: true,
      messageType: 'message',
      status: 'QUEUED',
      lineNumber: ALICE,
      number: BOB,
      dateSent: 1_000,
      dateUpdated: 1_000,
    } as const;
    const inserted = [
      await t.store.messages.insert({ ...base, handle: 'bare' }),
      await t.store.messages.insert({
        ...base,
        handle: 'full',
        messageType: 'group',
        number: '',
        recipients: [ALICE, BOB],
        errorCode: 4001,
        errorMessage: 'refused',
        errorDetail: 'detail',
        content: 'hi',
        mediaUrl: 'https://example.com/cat.png',
        sendStyle: 'celebration',
        statusCallback: 'https://example.com/cb',
        wasDowngraded: true,
        replyToHandle: 'bare',
        replyToPartIndex: 1,
        seatId: 'seat',
        transportHandle: 'up-full',
        handedOverAt: 1_001,
      }),
      await t.store.messages.insert({ ...base, handle: 'inbound', isOutbound: false, wasDowngraded: false, recipients: null }),
    ];

    const byDrizzle = t.db.select().from(messages).orderBy(messages.id).all();
    expect(inserted).toEqual(byDrizzle);
  });
});
