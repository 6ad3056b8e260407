import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { MessageRow } from '../../src/db/rows.ts';
import { messageRowJson } from '../../src/domain/message-row-view.ts';
import { MESSAGE_STATUSES } from '../../src/domain/status.ts';
import { type AccountFacts, listRecordJson } from '../../src/domain/views.ts';
import { makeTestApp } from '../helpers/app.ts';
import { accountRow } from '../helpers/delivery.ts';
import { ALICE, BOB, show } from '../helpers/fixtures.ts';

/**
 * The listings' JSON is written by the database (src/db/sqlite/queries/message-json.ts): for any
 * stored messages it must be, byte for byte, what the domain views write for the same rows read
 * back. Stored text holds no NUL (PostgreSQL refuses it; the API never stores one).
 */

const codeUnit = fc.oneof(
  fc.integer({ min: 1, max: 0xffff }).map((code) => String.fromCharCode(code)),
  fc.constantFrom('"', '\\', '\n', '\u2028', '\u007f', '\u001f', 'é', '😀', '/', '\ud800'),
  fc.constantFrom('a', 'Z', '0', ' ', '+'),
);
const text = fc.string({ unit: codeUnit, maxLength: 10 });
/** PostgreSQL's jsonb refuses the escape of a lone surrogate: recipients are whole characters. */
const member = fc.string({ unit: 'grapheme', maxLength: 6 });
const maybeText = fc.option(text, { nil: null });
/** The years 0000 to 9999, which toISOString writes with four digits. */
const time = fc.integer({ min: -62_167_219_200_000, max: 253_402_300_799_999 });

const storedMessage = fc.record({
  isOutbound: fc.boolean(),
  inGroup: fc.boolean(),
  status: fc.constantFrom(...MESSAGE_STATUSES),
  errorCode: fc.option(fc.integer({ min: -2_147_483_648, max: 2_147_483_647 }), { nil: null }),
  errorMessage: maybeText,
  errorDetail: maybeText,
  content: text,
  mediaUrl: fc.oneof(fc.constant(''), text),
  sendStyle: fc.oneof(fc.constant(''), text),
  statusCallback: maybeText,
  lineNumber: text,
  number: text,
  recipients: fc.option(fc.array(member, { maxLength: 3 }), { nil: null }),
  wasDowngraded: fc.option(fc.boolean(), { nil: null }),
  replyToHandle: maybeText,
  replyToPartIndex: fc.option(fc.nat(), { nil: null }),
  seatId: maybeText,
  dateSent: time,
  dateUpdated: time,
});

describe('listing JSON written by the database', () => {
  it('is what listRecordJson and messageRowJson write for the same rows', async () => {
    const t = makeTestApp();
    let handles = 0;

    await fc.assert(
      fc.asyncProperty(
        fc.array(storedMessage, { minLength: 1, maxLength: 4 }),
        fc.record({ email: text, plan: text }),
        text,
        async (stored, facts: AccountFacts, groupName) => {
          // An account of its own each run: the page is exactly the messages stored here.
          const account = await t.createAccount();
          const row = await accountRow(t, account);
          const sent = await t.call('POST', '/api/send-group-message', account, { numbers: [ALICE, BOB], content: 'group' });
          expect(sent.status, show(sent.body)).toBe(202);
          const groupId = sent.body.group_id as string;
          const members = await t.store.groups.members(groupId);
          await t.store.groups.rename(groupId, groupName, 0);
          const limit = stored.length + 1;
          for (const message of stored) {
            handles += 1;
            const inserted = await t.store.messages.insert({
              ...message,
              handle: `h${handles}`,
              accountId: row.id,
              messageType: message.inGroup ? 'group' : 'message',
              groupId: message.inGroup ? groupId : null,
              wasDowngraded: message.wasDowngraded === true,
            });
            // A transport that never said how it sent leaves the flag null.
            if (message.wasDowngraded === null) {
              const { status, errorCode, errorMessage, dateUpdated } = inserted;
              await t.store.messages.updateStatus(inserted.id, { status, errorCode, errorMessage, dateUpdated, wasDowngraded: null });
            }
          }
          const rows: MessageRow[] = await t.store.messages.list(row.id, {}, limit, 0);
          // The name as stored: a lone surrogate does not survive UTF-8.
          const storedName = (await t.store.groups.findById(row.id, groupId))!.displayName;
          // Unfiltered, and by a member's number: its own messages merged with its group's.
          for (const filter of [{}, { number: ALICE }]) {
            const listed = await t.store.messages.list(row.id, filter, limit, 0);
            expect(await t.store.messages.listJson(row.id, filter, limit, 0, facts)).toBe(
              `[${listed.map((message) => listRecordJson(message, facts)).join(',')}]`,
            );
          }
          const rowJson = (message: MessageRow) => {
            const grouped = message.messageType === 'group' && message.groupId !== null;
            const participants = grouped
              ? [...(message.isOutbound ? (message.recipients ?? []) : members), message.lineNumber]
              : [message.number, message.lineNumber];
            return messageRowJson(message, facts, { groupDisplayName: grouped ? storedName : null, participants });
          };
          const page = await t.store.messagesV2.listJson(row.id, {}, { by: 'sent', direction: 'desc' }, limit, 0, facts);
          expect(page).toEqual(rows.map(rowJson));
          const byUpdate = [...rows].sort((a, b) => a.dateUpdated - b.dateUpdated || a.id - b.id);
          const updatedPage = await t.store.messagesV2.listJson(row.id, {}, { by: 'updated', direction: 'asc' }, limit, 0, facts);
          expect(updatedPage).toEqual(byUpdate.map(rowJson));
        },
      ),
      { numRuns: 60 },
    );
  }, 120_000);
});
