import type { BbMessage } from './schemas.ts';

/** The statuses a BlueBubbles signal can give one of our outbound messages. */
export type BbOutboundStatus = 'SENT' | 'DELIVERED' | 'READ' | 'ERROR';

export type BbStatusEvent = {
  kind: 'status';
  guid: string;
  /** Our handle, when the event carries the tempGuid we sent with. */
  tempGuid: string | undefined;
  status: BbOutboundStatus;
  errorMessage: string | undefined;
  /** true when the message went as SMS, false as iMessage, undefined when the event does not say. */
  wasDowngraded: boolean | undefined;
  /** One event per (guid, status): two echoes, repeats and read-backs of it are the same event. */
  eventKey: string;
};

export type BbInboundAttachment = { guid: string; mimeType: string | undefined; name: string | undefined; totalBytes?: number | undefined };

export type BbInboundEvent = {
  kind: 'inbound';
  guid: string;
  /** The sender: a phone number, or an e-mail address for iMessage accounts that have one. */
  from: string;
  content: string;
  chatGuid: string | undefined;
  isGroup: boolean;
  /** The group's other members as the event lists them (BlueBubbles drops them from large payloads). */
  participants: string[] | undefined;
  attachments: BbInboundAttachment[];
  service: 'iMessage' | 'SMS';
  dateCreated: number | undefined;
};

export type BbIgnored = { kind: 'ignored'; reason: string };
export type BbEvent = BbStatusEvent | BbInboundEvent | BbIgnored;

/** The text Messages puts where an attachment sits in the body. */
const OBJECT_REPLACEMENT = /\uFFFC/g;

export function carrierErrorMessage(code: number): string {
  return `BlueBubbles error ${code}`;
}

function serviceOf(message: BbMessage): 'iMessage' | 'SMS' | undefined {
  const service = message.handle?.service;
  if (service === 'SMS' || service === 'iMessage') return service;
  const prefix = message.chats?.[0]?.guid.split(';')[0];
  return prefix === 'SMS' || prefix === 'iMessage' ? prefix : undefined;
}

/** A group chat's guid has `+` as its kind (`iMessage;+;chat…`); style 43 says the same. */
export function isGroupChat(chatGuid: string, style?: number | null): boolean {
  return style === 43 || chatGuid.split(';')[1] === '+';
}

/** What one of our own messages (`isFromMe`) shows: an error, a read, a delivery, or only that it went out. */
export function statusOfOwnMessage(message: BbMessage, forced?: 'ERROR'): BbStatusEvent {
  const errorCode = message.error ?? 0;
  let status: BbOutboundStatus = 'SENT';
  if (forced === 'ERROR' || errorCode !== 0) status = 'ERROR';
  else if (message.dateRead) status = 'READ';
  else if (message.isDelivered || message.dateDelivered) status = 'DELIVERED';
  const service = serviceOf(message);
  return {
    kind: 'status',
    guid: message.guid,
    tempGuid: message.tempGuid ?? undefined,
    status,
    errorMessage: status !== 'ERROR' ? undefined : errorCode !== 0 ? carrierErrorMessage(errorCode) : 'BlueBubbles reported a send error',
    wasDowngraded: service === undefined ? undefined : service === 'SMS',
    eventKey: `${message.guid}:${status}`,
  };
}

/** A message someone sent to the Mac's account; tapbacks, group events and empty items are not messages to relay. */
export function inboundOf(message: BbMessage): BbInboundEvent | BbIgnored {
  if (message.associatedMessageGuid) return { kind: 'ignored', reason: 'tapback' };
  if ((message.itemType ?? 0) !== 0) return { kind: 'ignored', reason: `item type ${message.itemType}` };
  const from = message.handle?.address;
  if (!from) return { kind: 'ignored', reason: 'no sender' };
  const content = (message.text ?? '').replace(OBJECT_REPLACEMENT, '').trim();
  const attachments = (message.attachments ?? []).map((attachment) => ({
    guid: attachment.guid,
    mimeType: attachment.mimeType ?? undefined,
    name: attachment.transferName ?? undefined,
    ...(attachment.totalBytes == null ? {} : { totalBytes: attachment.totalBytes }),
  }));
  if (content === '' && attachments.length === 0) return { kind: 'ignored', reason: 'empty message' };
  const chat = message.chats?.[0];
  const isGroup = chat !== undefined && isGroupChat(chat.guid, chat.style);
  return {
    kind: 'inbound',
    guid: message.guid,
    from,
    content,
    chatGuid: chat?.guid,
    isGroup,
    participants: isGroup ? chat?.participants?.map((participant) => participant.address) : undefined,
    attachments,
    service: serviceOf(message) ?? 'iMessage',
    dateCreated: message.dateCreated ?? undefined,
  };
}

/** A message read back with `message/query` or `message/:guid`: what it shows now. */
export function mapReadBack(message: BbMessage): BbEvent {
  return message.isFromMe ? statusOfOwnMessage(message) : inboundOf(message);
}

/**
 * A webhook event, as textrelay's status or inbound event. `updated-message` for an inbound
 * message (read on the Mac, attachment finished) is never a new message.
 */
export function mapWebhookEvent(type: string, message: BbMessage): BbEvent {
  switch (type) {
    case 'new-message':
      return mapReadBack(message);
    case 'updated-message':
      return message.isFromMe ? statusOfOwnMessage(message) : { kind: 'ignored', reason: 'update of an inbound message' };
    case 'message-send-error':
      return statusOfOwnMessage(message, 'ERROR');
    default:
      return { kind: 'ignored', reason: `event ${type}` };
  }
}
