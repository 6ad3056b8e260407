/**
 * Twilio's events in textrelay's terms (carriers.md B.4, B.5, B.9): pure, so every row of the
 * mapping is tested on its own.
 */
import { carrierFailureText } from '../../domain/carriers.ts';
import { ErrorCode } from '../../domain/error-codes.ts';
import type { OptOutIntent } from '../../domain/opt-out.ts';
import type { MessageStatus } from '../../domain/status.ts';
import type { StatusReport } from '../../services/record-status.ts';

/** A Twilio webhook's form fields, as posted. */
export type TwilioForm = Readonly<Record<string, string>>;

const STATUSES: Readonly<Record<string, MessageStatus>> = {
  queued: 'QUEUED',
  accepted: 'QUEUED',
  scheduled: 'QUEUED',
  sending: 'QUEUED',
  sent: 'SENT',
  delivered: 'DELIVERED',
  partially_delivered: 'DELIVERED',
  read: 'READ',
  failed: 'ERROR',
  undelivered: 'ERROR',
  canceled: 'ERROR',
};

/** Twilio's words for the asynchronous codes a status callback carries only by number (B.3). */
const CALLBACK_ERRORS: Readonly<Record<string, string>> = {
  '30001': 'Queue overflow',
  '30002': 'Account suspended',
  '30003': 'Unreachable destination handset',
  '30004': 'Message blocked',
  '30005': 'Unknown destination handset',
  '30006': 'Landline or unreachable carrier',
  '30007': 'Message filtered',
  '30008': 'Unknown error',
  '30034': 'Message from an unregistered number',
};

export type TwilioStatusEvent =
  | {
      kind: 'status';
      status: MessageStatus;
      /** Twilio's sid and status: the same pair twice is one event (B.4 has no event id). */
      eventId: string;
      sid: string;
      errorCode: number | null;
      errorMessage: string | null;
    }
  | { kind: 'ignored'; reason: string };

/** Twilio's status of message `sid` as our event; `code` and `said` are its error code and words, when it gives them. */
function statusEvent(sid: string, givenStatus: string, code: string, said: string | null): TwilioStatusEvent {
  const twilioStatus = givenStatus.toLowerCase();
  const status = STATUSES[twilioStatus];
  if (sid === '') return { kind: 'ignored', reason: 'no MessageSid' };
  if (status === undefined)
    return { kind: 'ignored', reason: `MessageStatus ${twilioStatus || '(none)'} means nothing for a sent message` };
  const eventId = `${sid}:${twilioStatus}`;
  if (status !== 'ERROR') return { kind: 'status', status, eventId, sid, errorCode: null, errorMessage: null };
  const errorMessage =
    code === ''
      ? carrierFailureText('twilio', twilioStatus, twilioStatus === 'canceled' ? 'The message was canceled' : 'No error code given')
      : carrierFailureText('twilio', code, CALLBACK_ERRORS[code] ?? (said || twilioStatus));
  return { kind: 'status', status, eventId, sid, errorCode: ErrorCode.sendFailed, errorMessage };
}

/** A status callback (B.4) as a status event of the message it names. */
export function statusEventOf(form: TwilioForm): TwilioStatusEvent {
  return statusEvent(form.MessageSid ?? form.SmsSid ?? '', form.MessageStatus ?? form.SmsStatus ?? '', form.ErrorCode ?? '', null);
}

/** The fields of a fetched Message resource (B.2) that say where it is. */
/** A Twilio status event as recordStatus takes it: Twilio carries SMS, so each one says the message went as SMS. */
export function statusReportOf(handle: string, event: Extract<TwilioStatusEvent, { kind: 'status' }>, line?: string): StatusReport {
  return {
    handle,
    status: event.status,
    errorCode: event.errorCode,
    errorMessage: event.errorMessage,
    wasDowngraded: true,
    source: 'twilio',
    sourceEventId: event.eventId,
    line: line || undefined,
  };
}

export type TwilioMessageResource = {
  sid: string;
  status: string;
  error_code?: number | null | undefined;
  error_message?: string | null | undefined;
};

/**
 * A message read back with GET Messages/{sid}.json, as the event its status callback would have
 * been: the same event id, so a read-back and a callback of one status are one event.
 */
export function readBackEventOf(resource: TwilioMessageResource): TwilioStatusEvent {
  const code = resource.error_code === null || resource.error_code === undefined ? '' : String(resource.error_code);
  return statusEvent(resource.sid, resource.status, code, resource.error_message ?? null);
}

export type TwilioInbound = {
  sid: string;
  from: string;
  to: string;
  content: string;
  /** MediaUrl0 … MediaUrl{NumMedia-1}: Twilio's copies, fetched by textrelay. */
  mediaUrls: string[];
  /** What Twilio's Advanced Opt-Out says the message asks for; undefined leaves it to the message's words. */
  optOut: OptOutIntent | undefined;
};

const OPT_OUT_TYPES: Readonly<Record<string, OptOutIntent>> = { STOP: 'opt_out', START: 'opt_in' };

/** An inbound message webhook (B.5); undefined when it lacks a sid, a sender or a line. */
export function inboundOf(form: TwilioForm): TwilioInbound | undefined {
  const sid = form.MessageSid ?? form.SmsMessageSid ?? form.SmsSid ?? '';
  const from = form.From ?? '';
  const to = form.To ?? '';
  if (sid === '' || from === '' || to === '') return undefined;
  const count = Math.min(Number.parseInt(form.NumMedia ?? '0', 10) || 0, 10);
  const mediaUrls: string[] = [];
  for (let index = 0; index < count; index++) {
    const url = form[`MediaUrl${index}`];
    if (url) mediaUrls.push(url);
  }
  return { sid, from, to, content: form.Body ?? '', mediaUrls, optOut: OPT_OUT_TYPES[(form.OptOutType ?? '').toUpperCase()] };
}

/** Twilio's "the recipient replied STOP to this sender" (B.3): never retried, and the opt-out is recorded. */
const UNSUBSCRIBED = 21610;

/**
 * What a failed create (B.2, B.3) means for the message: retry later (429, 5xx, no answer), or fail
 * it with Twilio's code, and whether Twilio says the recipient opted out.
 */
export function sendFailureOf(
  httpStatus: number,
  code: number | undefined,
  said: string,
): { retry: true } | { retry: false; text: string; recipientOptedOut: boolean } {
  if (httpStatus === 429 || httpStatus >= 500 || code === 20429) return { retry: true };
  return {
    retry: false,
    text: carrierFailureText('twilio', code ?? `HTTP ${httpStatus}`, said),
    recipientOptedOut: code === UNSUBSCRIBED,
  };
}
