/**
 * The v2 Message row (messages.list and messages.retrieve of the SDK), as JSON text. Pure, built from the same
 * records as the v1 views, so v1 and v2 never disagree about a message.
 */
import { toIso } from './dates.ts';
import { jsonNullableNumber, jsonNullableString, jsonString, jsonStrings } from './json-text.ts';
import { type AccountFacts, type MessageFacts, replyToOf } from './views.ts';

/** What else a row shows: the group's name and everyone in the conversation. */
export type RowContext = { groupDisplayName: string | null; participants: string[] };

/** How the message travelled: textrelay knows iMessage, or SMS when the transport downgraded it. */
export function serviceOf(wasDowngraded: boolean | null): 'iMessage' | 'SMS' {
  return wasDowngraded === true ? 'SMS' : 'iMessage';
}

/**
 * The JSON of a Message row. Written as text, not built as an object: pages of these are the
 * largest answers of v2.
 */
export function messageRowJson(message: MessageFacts, account: AccountFacts, context: RowContext): string {
  const groupSend = message.isOutbound && message.messageType === 'group';
  const endUser = jsonString(groupSend ? '' : message.number);
  const line = jsonString(message.lineNumber);
  const errorDetail = jsonNullableString(message.errorDetail);
  const replyTo = replyToOf(message);
  const handleReplied = replyTo === null ? '' : jsonString(replyTo.message_handle);
  const replyToJson =
    replyTo === null
      ? 'null'
      : `{"message_handle":${handleReplied}${replyTo.part_index === undefined ? '' : `,"part_index":${replyTo.part_index}`}}`;
  return (
    `{"accountEmail":${jsonString(account.email)},"content":${jsonString(message.content)}` +
    `,"date_sent":"${toIso(message.dateSent)}","date_updated":"${toIso(message.dateUpdated)}"` +
    `,"error_code":${jsonNullableNumber(message.errorCode)},"error_detail":${errorDetail}` +
    `,"error_message":${jsonNullableString(message.errorMessage)},"error_reason":${errorDetail}` +
    `,"from_number":${message.isOutbound ? line : jsonString(message.number)}` +
    `,"group_display_name":${jsonNullableString(context.groupDisplayName)},"group_id":${jsonNullableString(message.groupId)}` +
    `,"is_outbound":${message.isOutbound},"media_url":${message.mediaUrl === '' ? 'null' : jsonString(message.mediaUrl)}` +
    `,"message_handle":${jsonString(message.handle)},"message_type":${jsonString(message.messageType)},"number":${endUser}` +
    `,"opted_out":${message.optedOut},"participants":${jsonStrings(context.participants)},"plan":${jsonString(account.plan)}` +
    `,"reply_to":${replyToJson},"seat_id":${jsonNullableString(message.seatId)}` +
    `,"send_style":${message.sendStyle === '' ? 'null' : jsonString(message.sendStyle)},"sendblue_number":${line}` +
    `,"sender_email":null,"service":"${serviceOf(message.wasDowngraded)}","status":${jsonString(message.status)}` +
    `,"thread_originator":${replyTo === null ? 'null' : `{"message_handle":${handleReplied}}`}` +
    `,"to_number":${message.isOutbound ? endUser : line},"was_downgraded":${message.wasDowngraded === true}}`
  );
}
