/**
 * The bodies textrelay POSTs to its clients (contract section 7). Built from the same facts as the
 * API's Message object, so a callback never disagrees with `GET /api/status`.
 */
import { type AccountFacts, type MessageFacts, toMessageObject } from './views.ts';

/** The spec's status-callback fields, which the receive webhook carries too. */
function callbackFields(message: MessageFacts, account: AccountFacts, participants: string[]) {
  const view = toMessageObject(message, account, participants);
  return {
    view,
    fields: {
      accountEmail: view.accountEmail,
      content: view.content,
      is_outbound: view.is_outbound,
      media_url: view.media_url,
      status: view.status,
      error_code: view.error_code,
      error_message: view.error_message,
      message_handle: view.message_handle,
      date_sent: view.date_sent,
      date_updated: view.date_updated,
      from_number: view.from_number,
      number: view.number,
      to_number: view.to_number,
      // The callback table types it boolean: "not known yet" (still QUEUED) reads as not downgraded.
      was_downgraded: view.was_downgraded ?? false,
      plan: view.plan,
      message_type: view.message_type,
      group_id: view.group_id,
    },
  };
}

/** Status callback: the spec's fields, plus message_type and group_id so group sends can be told apart. */
export function toStatusCallbackPayload(message: MessageFacts, account: AccountFacts) {
  return callbackFields(message, account, []).fields;
}

export type InboundService = 'iMessage' | 'SMS';

/** Receive webhook: an inbound message, with the group fields of contract section 4b. */
export function toReceivePayload(
  message: MessageFacts & { optedOut: boolean },
  account: AccountFacts,
  group: { participants: string[]; displayName: string } | null,
) {
  const { view, fields } = callbackFields(message, account, group?.participants ?? []);
  const service: InboundService = message.wasDowngraded ? 'SMS' : 'iMessage';
  return {
    ...fields,
    participants: view.participants,
    service,
    group_display_name: group?.displayName ?? '',
    send_style: view.send_style,
    // True on the message that opted its sender out (STOP and its synonyms).
    opted_out: message.optedOut,
  };
}

export type StatusCallbackPayload = ReturnType<typeof toStatusCallbackPayload>;
export type ReceivePayload = ReturnType<typeof toReceivePayload>;
