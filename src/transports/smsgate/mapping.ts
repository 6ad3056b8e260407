/**
 * SMSGate's events in textrelay's terms (carriers-smsgate.md C.3, C.4, C.5, C.9): pure, so every
 * row of the mapping is tested on its own.
 */
import { CARRIER_PROFILES, carrierFailureText } from '../../domain/carriers.ts';
import { ErrorCode } from '../../domain/error-codes.ts';
import type { MessageStatus } from '../../domain/status.ts';

/** The webhook events textrelay registers, one webhook each. */
export const SMSGATE_EVENTS = ['sms:received', 'sms:sent', 'sms:delivered', 'sms:failed'] as const;

const EVENT_STATUSES: Readonly<Record<string, MessageStatus>> = {
  'sms:sent': 'SENT',
  'sms:delivered': 'DELIVERED',
  'sms:failed': 'ERROR',
  'sms:cancelled': 'ERROR',
};

/** A message's state as GET /messages/{id} shows it, and the event the phone sent (or would have) for it. */
const STATE_EVENTS: Readonly<Record<string, { status: MessageStatus; event?: string }>> = {
  Pending: { status: 'QUEUED' },
  Processed: { status: 'QUEUED' },
  Cancelling: { status: 'QUEUED' },
  Sent: { status: 'SENT', event: 'sms:sent' },
  Delivered: { status: 'DELIVERED', event: 'sms:delivered' },
  Failed: { status: 'ERROR', event: 'sms:failed' },
  Cancelled: { status: 'ERROR', event: 'sms:cancelled' },
};

export type SmsGateStatusEvent = {
  kind: 'status';
  /** The id textrelay gave the message: its handle. */
  handle: string;
  status: MessageStatus;
  /** The message and the event: the same pair twice is one event, whatever the envelope (C.9, layer 2). */
  eventId: string;
  errorCode: number | null;
  errorMessage: string | null;
};

export type SmsGateInbound = {
  kind: 'inbound';
  /** The phone's id of the SMS, the same from its webhook and from its inbox. */
  handle: string;
  from: string;
  content: string;
};

export type SmsGateEvent = SmsGateStatusEvent | SmsGateInbound | { kind: 'ignored'; reason: string };

/** Android's own limit on SMS per app (C.8) as the phone reports it. */
const ANDROID_LIMIT = /LIMIT_EXCEEDED/i;

/** The phone's reason for a failed SMS as the message's error_message, with what to do about Android's limit. */
export function phoneFailureText(reason: string): string {
  const said = reason.trim() === '' ? 'the phone reported a failure without a reason' : reason.trim();
  const hint = ANDROID_LIMIT.test(said)
    ? " (Android's limit of about 30 SMS a minute per app: set the app's message limits so the phone paces its sends)"
    : '';
  return `${CARRIER_PROFILES.smsgate.label}: ${said}${hint}`;
}

function statusEvent(handle: string, event: string, status: MessageStatus, reason: string | null | undefined): SmsGateStatusEvent {
  const failed = status === 'ERROR';
  const text = event === 'sms:cancelled' ? 'the message was cancelled on the phone' : (reason ?? '');
  return {
    kind: 'status',
    handle,
    status,
    eventId: `${handle}|${event}`,
    errorCode: failed ? ErrorCode.sendFailed : null,
    errorMessage: failed ? phoneFailureText(text) : null,
  };
}

/** The phone's id of a received SMS as textrelay keeps it; `hexId` is the webhook's messageId. */
export function inboundHandleOf(hexId: string): string {
  return `smsgate:${hexId.toLowerCase()}`;
}

/** An inbox id (`text:<signed 32-bit hash>`) as the webhook's messageId for the same SMS (the hash, unsigned, in hex). */
export function inboxHexOf(inboxId: string): string | undefined {
  const match = /^text:(-?\d{1,10})$/.exec(inboxId);
  if (!match) return undefined;
  const hash = Number(match[1]);
  if (hash < -(2 ** 31) || hash >= 2 ** 31) return undefined;
  return (hash >>> 0).toString(16);
}

type Envelope = {
  event: string;
  payload: { messageId?: string | null; sender?: string | null; message?: string | null; reason?: string | null };
};

/** A webhook's envelope (C.4) as a status event of one of our messages, an inbound SMS, or nothing textrelay uses. */
export function webhookEventOf(envelope: Envelope): SmsGateEvent {
  const { event, payload } = envelope;
  const messageId = payload.messageId ?? '';
  if (messageId === '') return { kind: 'ignored', reason: `${event} without a messageId` };
  if (event === 'sms:received') {
    const from = payload.sender ?? '';
    if (from === '') return { kind: 'ignored', reason: 'sms:received without a sender' };
    return { kind: 'inbound', handle: inboundHandleOf(messageId), from, content: payload.message ?? '' };
  }
  const status = EVENT_STATUSES[event];
  if (status === undefined) return { kind: 'ignored', reason: `${event} is not an event textrelay registers` };
  return statusEvent(messageId, event, status, payload.reason);
}

type MessageState = { id: string; state: string; recipients?: readonly { state: string; error?: string | null | undefined }[] | null };

/**
 * A message read back with GET /messages/{id}, as the event its webhook would have been (the same
 * event id, so a read-back and a webhook of one state are one event). Its one recipient's state
 * decides: a message-level "Sent" also covers a failed recipient (C.3).
 */
export function stateEventOf(message: MessageState): SmsGateEvent {
  const recipient = message.recipients?.[0];
  const state = recipient?.state ?? message.state;
  const mapped = STATE_EVENTS[state];
  if (mapped === undefined) return { kind: 'ignored', reason: `state ${state || '(none)'} means nothing for a sent message` };
  if (mapped.event === undefined) return { kind: 'ignored', reason: `the message is still ${state} on the phone` };
  return statusEvent(message.id, mapped.event, mapped.status, recipient?.error);
}

type InboxItem = { id: string; type: string; sender: string; contentPreview: string };

/** One SMS of the phone's inbox (C.5) as the inbound message its sms:received webhook would have been. */
export function inboxEventOf(item: InboxItem): SmsGateEvent {
  const hex = inboxHexOf(item.id);
  if (item.type !== 'SMS' || hex === undefined) return { kind: 'ignored', reason: `inbox item ${item.id} is not an SMS textrelay reads` };
  if (item.sender === '') return { kind: 'ignored', reason: `inbox item ${item.id} has no sender` };
  return { kind: 'inbound', handle: inboundHandleOf(hex), from: item.sender, content: item.contentPreview };
}

/**
 * What a refused POST /messages (C.7) means for the message: it is there already (409: read its
 * state, never send again), retry later (429, 5xx), or fail it with SMSGate's words.
 */
export function sendFailureOf(
  httpStatus: number,
  said: string,
): { kind: 'already-there' } | { kind: 'retry' } | { kind: 'refused'; text: string } {
  if (httpStatus === 409) return { kind: 'already-there' };
  if (httpStatus === 429 || httpStatus >= 500) return { kind: 'retry' };
  return { kind: 'refused', text: carrierFailureText('smsgate', `HTTP ${httpStatus}`, said) };
}
