/**
 * What an SMSGate phone's local server puts on the wire (carriers-smsgate.md C.2-C.5): its
 * credentials and device, the send request's validation, message states, ids and timestamps.
 */
import { randomBytes } from 'node:crypto';

export const SMSGATE_USERNAME = 'sms';
export const SMSGATE_PASSWORD = 'fake-smsgate-password';
export const SMSGATE_SIGNING_KEY = 'fake-signing-key';
export const SMSGATE_DEVICE_ID = 'ffffffffceb0b1db0000018e937c815b';
export const SMSGATE_APP_VERSION = '1.68.0';

export type FakeSmsGateState = 'Pending' | 'Processed' | 'Sent' | 'Delivered' | 'Failed';
export type FakeSmsGateMessage = {
  id: string;
  deviceId: string;
  text: string;
  phoneNumbers: string[];
  withDeliveryReport: boolean;
  state: FakeSmsGateState;
  recipients: { phoneNumber: string; state: string; error?: string }[];
  states: Record<string, string>;
  body: unknown;
};
export type FakeSmsGateWebhook = { id: string; url: string; event: string; deviceId?: string };
export type FakeSmsGateInboxEntry = {
  id: string;
  type: 'SMS';
  sender: string;
  recipient: string | null;
  simNumber: number;
  contentPreview: string;
  createdAt: string;
};

export const WEBHOOK_EVENTS = [
  'sms:received',
  'sms:data-received',
  'sms:sent',
  'sms:delivered',
  'sms:failed',
  'sms:cancelled',
  'mms:received',
  'mms:downloaded',
  'system:ping',
  'app:started',
];
export const INBOX_TYPES = ['SMS', 'DATA_SMS', 'MMS', 'MMS_DOWNLOADED'];

const NANOID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-';

/** A 21-character id as the app's NanoIdUtils makes them (messages, webhooks, envelopes). */
export function nanoid(): string {
  return [...randomBytes(21)].map((byte) => NANOID_ALPHABET[byte & 63]).join('');
}

/** The phone's clock offset: not UTC, so that readers must parse the offset rather than assume Z. */
const DEVICE_OFFSET = '+07:00';
const DEVICE_OFFSET_MS = 7 * 3_600_000;

/** A time as the app's Gson writes it: `yyyy-MM-dd'T'HH:mm:ss.SSSXXX` in the device's offset. */
export function deviceTime(epochMs: number): string {
  return `${new Date(epochMs + DEVICE_OFFSET_MS).toISOString().slice(0, 23)}${DEVICE_OFFSET}`;
}

/** Java's String.hashCode: the app builds inbound ids from it, so it is a signed 32-bit integer. */
export function javaHashCode(value: string): number {
  let hash = 0;
  for (let index = 0; index < value.length; index++) hash = (Math.imul(31, hash) + value.charCodeAt(index)) | 0;
  return hash;
}

/** The content hash of an incoming SMS: the inbox id is `text:<signed>`, the webhook messageId the unsigned hex. */
export function incomingIds(sender: string, at: Date, text: string) {
  const hash = javaHashCode(`${sender}${at.getTime()}${text}`);
  return { inboxId: `text:${hash}`, messageId: (hash >>> 0).toString(16) };
}

const isObject = (value: unknown): value is Record<string, any> => typeof value === 'object' && value !== null && !Array.isArray(value);
const present = (value: unknown) => value !== undefined && value !== null;

/** Why the local server refuses a send request with 400 (PostMessageRequest.validate), or undefined. */
export function sendRefusal(body: unknown): string | undefined {
  if (!isObject(body)) return 'Request body must be a JSON object';
  const kinds = ['textMessage', 'dataMessage', 'message'].filter((kind) => present(body[kind]));
  if (kinds.length !== 1) return 'Exactly one of textMessage, dataMessage or message must be set';
  const text = present(body.textMessage) ? (isObject(body.textMessage) ? body.textMessage.text : undefined) : body.message;
  if (!present(body.dataMessage) && (typeof text !== 'string' || text.length < 1 || text.length > 65535))
    return 'Text message must be between 1 and 65535 characters';
  if (present(body.dataMessage)) {
    const { data, port } = isObject(body.dataMessage) ? body.dataMessage : { data: undefined, port: undefined };
    if (typeof data !== 'string' || !/^[A-Za-z0-9+/]+={0,2}$/.test(data)) return 'Data message must be base64';
    if (!Number.isInteger(port) || port < 0 || port > 65535) return 'Port must be between 0 and 65535';
  }
  const numbers = body.phoneNumbers;
  if (!Array.isArray(numbers) || numbers.length < 1 || numbers.length > 100) return 'phoneNumbers must have 1 to 100 entries';
  if (!numbers.every((number) => typeof number === 'string' && number.length > 0)) return 'phoneNumbers must be non-empty strings';
  if (present(body.id) && (typeof body.id !== 'string' || body.id.length > 36)) return 'id must be at most 36 characters';
  if (present(body.deviceId) && body.deviceId !== SMSGATE_DEVICE_ID) return 'Invalid device ID';
  if (present(body.simNumber) && !(Number.isInteger(body.simNumber) && Number(body.simNumber) >= 1)) return 'simNumber must be 1 or more';
  if (present(body.withDeliveryReport) && typeof body.withDeliveryReport !== 'boolean') return 'withDeliveryReport must be a boolean';
  if (present(body.ttl) && present(body.validUntil)) return 'fields conflict: ttl and validUntil';
  return undefined;
}

/** The message-level state derived from its recipients (MessageWithRecipients.kt): partly failed reads "Sent". */
export function messageState(recipients: { state: string }[]): FakeSmsGateState {
  const states = recipients.map((recipient) => recipient.state);
  if (states.includes('Pending')) return 'Pending';
  if (states.includes('Processed')) return 'Processed';
  if (states.every((state) => state === 'Failed')) return 'Failed';
  if (states.every((state) => state === 'Delivered')) return 'Delivered';
  return 'Sent';
}

/** A message as POST /messages and GET /messages/{id} show it; the local server echoes the content. */
export function messageResource(message: FakeSmsGateMessage) {
  const body = message.body as Record<string, any>;
  return {
    id: message.id,
    deviceId: message.deviceId,
    state: message.state,
    isHashed: false,
    isEncrypted: false,
    recipients: message.recipients.map((recipient) => ({ ...recipient })),
    states: { ...message.states },
    ...(present(body.dataMessage) ? { dataMessage: body.dataMessage } : { textMessage: { text: message.text } }),
  };
}
