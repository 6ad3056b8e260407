/**
 * The public shapes of messages and contacts, built from plain records. Kept pure and in one place
 * so the API responses, the listing and (later) callback payloads can never drift apart.
 */
import { formatDisplayDate, toIso, toSecondsNanos } from './dates.ts';
import { jsonNullableNumber, jsonNullableString, jsonString, jsonStrings } from './json-text.ts';
import { formatDisplayPhone } from './phone.ts';
import type { MessageStatus } from './status.ts';

export type MessageFacts = {
  handle: string;
  isOutbound: boolean;
  messageType: 'message' | 'group';
  status: MessageStatus;
  errorCode: number | null;
  errorMessage: string | null;
  errorDetail: string | null;
  content: string;
  mediaUrl: string;
  sendStyle: string;
  statusCallback: string | null;
  lineNumber: string;
  number: string;
  recipients: string[] | null;
  groupId: string | null;
  wasDowngraded: boolean | null;
  /** The message this one answers (`reply_to`), and which part of it. */
  replyToHandle: string | null;
  replyToPartIndex: number | null;
  seatId: string | null;
  /** Inbound: the end user opted out with this very message. */
  optedOut: boolean;
  dateSent: number;
  dateUpdated: number;
};

export type AccountFacts = { email: string; plan: string };

export type ContactFacts = {
  id: string;
  phone: string;
  firstName: string;
  lastName: string;
  companyName: string;
  lastMessageAt: number | null;
  previewText: string;
  lastInboundAt: number | null;
  lastOutboundAt: number | null;
  createdAt: number;
};

/** The end user(s) a message is with: the recipients of a group send, else the one number. */
function endUsers(message: MessageFacts): string | string[] {
  return message.isOutbound && message.messageType === 'group' ? (message.recipients ?? []) : message.number;
}

function addressing(message: MessageFacts) {
  const users = endUsers(message);
  return message.isOutbound
    ? { from_number: message.lineNumber, number: users, to_number: users }
    : { from_number: message.number, number: users, to_number: message.lineNumber };
}

/** `{message_handle, part_index?}`, or null when the message answers none. */
export function replyToOf(message: Pick<MessageFacts, 'replyToHandle' | 'replyToPartIndex'>) {
  if (message.replyToHandle === null) return null;
  return message.replyToPartIndex === null
    ? { message_handle: message.replyToHandle }
    : { message_handle: message.replyToHandle, part_index: message.replyToPartIndex };
}

/** The Message object answered by the sends and by GET /api/status (the SDK's MessageResponse). */
export function toMessageObject(message: MessageFacts, account: AccountFacts, participants: string[]) {
  const { from_number, number, to_number } = addressing(message);
  const base = {
    accountEmail: account.email,
    content: message.content,
    is_outbound: message.isOutbound,
    status: message.status,
    error_code: message.errorCode,
    error_message: message.errorMessage,
    error_detail: message.errorDetail,
    message_handle: message.handle,
    date_sent: toIso(message.dateSent),
    date_updated: toIso(message.dateUpdated),
    from_number,
    number,
    to_number,
    was_downgraded: message.wasDowngraded,
    plan: account.plan,
    media_url: message.mediaUrl,
    message_type: message.messageType,
    group_id: message.groupId ?? '',
    participants,
    send_style: message.sendStyle,
    opted_out: message.optedOut,
    // The SDK's MessageResponse spellings and fields beside the contract's.
    account_email: account.email,
    date_created: toIso(message.dateSent),
    reply_to: replyToOf(message),
    seat_id: message.seatId,
    sender_email: null,
  };
  // The spec announces the rename of number/to_number to numbers/to_numbers for groups: send both.
  return Array.isArray(number) ? { ...base, numbers: number, to_numbers: number } : base;
}

export type MessageView = ReturnType<typeof toMessageObject>;

/** `{"_seconds":...,"_nanoseconds":...}`: the Firestore-style timestamp that list records carry (toSecondsNanos). */
function secondsNanosJson(epochMs: number): string {
  const { _seconds, _nanoseconds } = toSecondsNanos(epochMs);
  return `{"_seconds":${_seconds},"_nanoseconds":${_nanoseconds}}`;
}

/**
 * The JSON of a record of GET /accounts/messages, carrying both spellings of the aliased fields.
 * Written as text, not built as an object: pages of these are the largest answers.
 */
export function listRecordJson(message: MessageFacts, account: AccountFacts): string {
  const handle = jsonString(message.handle);
  const line = jsonString(message.lineNumber);
  const users = endUsers(message);
  const usersJson = typeof users === 'string' ? jsonString(users) : jsonStrings(users);
  const sendStyle = jsonString(message.sendStyle);
  const type = jsonString(message.messageType);
  const callbackUrl = jsonString(message.statusCallback ?? '');
  const [from, to] = message.isOutbound ? [line, usersJson] : [jsonString(message.number), line];
  return (
    `{"uuid":${handle},"message_handle":${handle},"date":"${toIso(message.dateSent)}","content":${jsonString(message.content)}` +
    `,"media_url":${jsonString(message.mediaUrl)},"number":${usersJson},"to_number":${to},"from_number":${from}` +
    `,"is_outbound":${message.isOutbound},"accountEmail":${jsonString(account.email)},"status":${jsonString(message.status)}` +
    `,"error_code":${jsonNullableNumber(message.errorCode)},"error_message":${jsonNullableString(message.errorMessage)}` +
    `,"error_detail":${jsonNullableString(message.errorDetail)},"was_downgraded":${message.wasDowngraded}` +
    // textrelay always falls back to SMS when iMessage is unavailable.
    `,"allowSMS":true,"allow_sms":true,"sendStyle":${sendStyle},"send_style":${sendStyle},"type":${type},"message_type":${type}` +
    `,"callbackURL":${callbackUrl},"callback_url":${callbackUrl}` +
    // Internal row ids would reveal other accounts' volumes; the handle identifies the record.
    `,"row_id":null,"date_sent":${secondsNanosJson(message.dateSent)},"date_updated":${secondsNanosJson(message.dateUpdated)}` +
    `,"phoneID":${line},"group_id":${jsonString(message.groupId ?? '')}}`
  );
}

export function toContactData(contact: ContactFacts, accountEmail: string) {
  return {
    account_email: accountEmail,
    firstName: contact.firstName,
    lastName: contact.lastName,
    phone: contact.phone,
    displayPhone: formatDisplayPhone(contact.phone),
    companyName: contact.companyName,
  };
}

export function toContactView(contact: ContactFacts, accountEmail: string, timeZone: string) {
  return {
    cid: contact.id,
    ...toContactData(contact, accountEmail),
    // Unread: the person wrote after our last message to them.
    is_unread: contact.lastInboundAt !== null && contact.lastInboundAt > (contact.lastOutboundAt ?? 0),
    previewText: contact.previewText,
    last_date: contact.lastMessageAt === null ? '' : toIso(contact.lastMessageAt),
    displayDate: contact.lastMessageAt === null ? '' : formatDisplayDate(contact.lastMessageAt, timeZone),
  };
}

/** What a conversation list shows for a message: its text, or its attachment when it has none. */
export function previewOf(content: string, mediaUrl: string): string {
  return content !== '' ? content : mediaUrl;
}
