/**
 * The v2 Message row (messages.list and messages.retrieve of the SDK). Pure, built from the same
 * records as the v1 views, so v1 and v2 never disagree about a message.
 */
import { toIso } from './dates.ts';
import { type AccountFacts, type MessageFacts, replyToOf } from './views.ts';

/** What else a row shows: the group's name and everyone in the conversation. */
export type RowContext = { groupDisplayName: string | null; participants: string[] };

/** How the message travelled: textrelay knows iMessage, or SMS when the transport downgraded it. */
export function serviceOf(wasDowngraded: boolean | null): 'iMessage' | 'SMS' {
  return wasDowngraded === true ? 'SMS' : 'iMessage';
}

export function toMessageRow(message: MessageFacts, account: AccountFacts, context: RowContext) {
  const groupSend = message.isOutbound && message.messageType === 'group';
  const endUser = groupSend ? '' : message.number;
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
    group_display_name: context.groupDisplayName,
    group_id: message.groupId,
    is_outbound: message.isOutbound,
    media_url: message.mediaUrl === '' ? null : message.mediaUrl,
    message_handle: message.handle,
    message_type: message.messageType,
    number: endUser,
    opted_out: message.optedOut,
    participants: context.participants,
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

export type MessageRowView = ReturnType<typeof toMessageRow>;
