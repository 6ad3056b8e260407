import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toIso, toSecondsNanos } from '../../src/domain/dates.ts';
import { jsonNullableNumber, jsonString, jsonStrings } from '../../src/domain/json-text.ts';
import { messageRowJson, serviceOf } from '../../src/domain/message-row-view.ts';
import { MESSAGE_STATUSES } from '../../src/domain/status.ts';
import { type AccountFacts, listRecordJson, type MessageFacts, replyToOf } from '../../src/domain/views.ts';

/**
 * The listings write their JSON by hand (src/domain/json-text.ts): the text must be exactly
 * JSON.stringify of the record as an object. These builders are that object, field by field.
 */
function listRecordObject(message: MessageFacts, account: AccountFacts) {
  const users = message.isOutbound && message.messageType === 'group' ? (message.recipients ?? []) : message.number;
  const callbackUrl = message.statusCallback ?? '';
  return {
    uuid: message.handle,
    message_handle: message.handle,
    date: toIso(message.dateSent),
    content: message.content,
    media_url: message.mediaUrl,
    number: users,
    to_number: message.isOutbound ? users : message.lineNumber,
    from_number: message.isOutbound ? message.lineNumber : message.number,
    is_outbound: message.isOutbound,
    accountEmail: account.email,
    status: message.status,
    error_code: message.errorCode,
    error_message: message.errorMessage,
    error_detail: message.errorDetail,
    was_downgraded: message.wasDowngraded,
    allowSMS: true,
    allow_sms: true,
    sendStyle: message.sendStyle,
    send_style: message.sendStyle,
    type: message.messageType,
    message_type: message.messageType,
    callbackURL: callbackUrl,
    callback_url: callbackUrl,
    row_id: null,
    date_sent: toSecondsNanos(message.dateSent),
    date_updated: toSecondsNanos(message.dateUpdated),
    phoneID: message.lineNumber,
    group_id: message.groupId ?? '',
  };
}

function messageRowObject(message: MessageFacts, account: AccountFacts, groupDisplayName: string | null, participants: string[]) {
  const endUser = message.isOutbound && message.messageType === 'group' ? '' : message.number;
  const replyTo = replyToOf(message);
  return {
    accountEmail: account.email,
    content: message.content,
    date_sent: toIso(message.dateSent),
    date_updated: toIso(message.dateUpdated),
    error_code: message.errorCode,
    error_detail: message.errorDetail,
    error_message: message.errorMessage,
    error_reason: message.errorDetail,
    from_number: message.isOutbound ? message.lineNumber : message.number,
    group_display_name: groupDisplayName,
    group_id: message.groupId,
    is_outbound: message.isOutbound,
    media_url: message.mediaUrl === '' ? null : message.mediaUrl,
    message_handle: message.handle,
    message_type: message.messageType,
    number: endUser,
    opted_out: message.optedOut,
    participants,
    plan: account.plan,
    reply_to: replyTo,
    seat_id: message.seatId,
    send_style: message.sendStyle === '' ? null : message.sendStyle,
    sendblue_number: message.lineNumber,
    sender_email: null,
    service: serviceOf(message.wasDowngraded),
    status: message.status,
    thread_originator: replyTo === null ? null : { message_handle: replyTo.message_handle },
    to_number: message.isOutbound ? endUser : message.lineNumber,
    was_downgraded: message.wasDowngraded === true,
  };
}

/** Any UTF-16 code unit, lone surrogates and control characters included, with the characters JSON escapes often. */
const codeUnit = fc.oneof(
  fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code)),
  fc.constantFrom('"', '\\', '\n', '\u2028', '\u0000', '\u007f', 'é', '😀', '/'),
  fc.constantFrom('a', 'Z', '0', ' ', '+'),
);
const text = fc.string({ unit: codeUnit, maxLength: 12 });
const maybeText = fc.option(text, { nil: null });
const time = fc.integer({ min: -8.64e15, max: 8.64e15 });

const messageFacts: fc.Arbitrary<MessageFacts> = fc.record({
  handle: text,
  isOutbound: fc.boolean(),
  messageType: fc.constantFrom('message', 'group'),
  status: fc.constantFrom(...MESSAGE_STATUSES),
  errorCode: fc.option(fc.integer(), { nil: null }),
  errorMessage: maybeText,
  errorDetail: maybeText,
  content: text,
  mediaUrl: fc.oneof(fc.constant(''), text),
  sendStyle: fc.oneof(fc.constant(''), text),
  statusCallback: maybeText,
  lineNumber: text,
  number: text,
  recipients: fc.option(fc.array(text, { maxLength: 3 }), { nil: null }),
  groupId: maybeText,
  wasDowngraded: fc.option(fc.boolean(), { nil: null }),
  replyToHandle: maybeText,
  replyToPartIndex: fc.option(fc.nat(), { nil: null }),
  seatId: maybeText,
  optedOut: fc.boolean(),
  dateSent: time,
  dateUpdated: time,
});
const accountFacts: fc.Arbitrary<AccountFacts> = fc.record({ email: text, plan: text });

describe('listing JSON written by hand', () => {
  it('quotes strings, numbers and arrays as JSON.stringify does', () => {
    fc.assert(
      fc.property(text, maybeText, fc.array(text, { maxLength: 4 }), (value, nullable, values) => {
        expect(jsonString(value)).toBe(JSON.stringify(value));
        expect(jsonStrings(values)).toBe(JSON.stringify(values));
        expect(jsonNullableNumber(nullable === null ? null : nullable.length)).toBe(JSON.stringify(nullable?.length ?? null));
      }),
      { numRuns: 2000 },
    );
    for (const value of [Number.NaN, Number.POSITIVE_INFINITY, -0, 1e21, -3000])
      expect(jsonNullableNumber(value)).toBe(JSON.stringify(value));
  });

  it('writes a record of GET /accounts/messages as JSON.stringify writes its object', () => {
    fc.assert(
      fc.property(messageFacts, accountFacts, (message, account) => {
        expect(listRecordJson(message, account)).toBe(JSON.stringify(listRecordObject(message, account)));
      }),
      { numRuns: 2000 },
    );
  });

  it('writes a v2 Message row as JSON.stringify writes its object', () => {
    fc.assert(
      fc.property(messageFacts, accountFacts, maybeText, fc.array(text, { maxLength: 4 }), (message, account, groupName, participants) => {
        const json = messageRowJson(message, account, { groupDisplayName: groupName, participants });
        expect(json).toBe(JSON.stringify(messageRowObject(message, account, groupName, participants)));
      }),
      { numRuns: 2000 },
    );
  });
});
