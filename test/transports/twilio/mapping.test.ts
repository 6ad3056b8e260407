import { describe, expect, it } from 'vitest';
import { inboundOf, sendFailureOf, statusEventOf } from '../../../src/transports/twilio/mapping.ts';

const SID = 'SM0123456789abcdef0123456789abcdef';

describe("Twilio's status callbacks in textrelay's statuses (carriers.md B.9)", () => {
  it.each([
    ['queued', 'QUEUED'],
    ['accepted', 'QUEUED'],
    ['scheduled', 'QUEUED'],
    ['sending', 'QUEUED'],
    ['sent', 'SENT'],
    ['delivered', 'DELIVERED'],
    ['partially_delivered', 'DELIVERED'],
    ['read', 'READ'],
  ] as const)('%s -> %s, one event per (MessageSid, MessageStatus)', (twilio, status) => {
    expect(statusEventOf({ MessageSid: SID, MessageStatus: twilio })).toEqual({
      kind: 'status',
      status,
      eventId: `${SID}:${twilio}`,
      sid: SID,
      errorCode: null,
      errorMessage: null,
    });
  });

  it.each([
    [{ MessageStatus: 'undelivered', ErrorCode: '30003' }, 'Twilio 30003: Unreachable destination handset'],
    [{ MessageStatus: 'failed', ErrorCode: '30007' }, 'Twilio 30007: Message filtered'],
    [{ MessageStatus: 'failed', ErrorCode: '30999' }, 'Twilio 30999: failed'],
    [{ MessageStatus: 'undelivered' }, 'Twilio undelivered: No error code given'],
    [{ MessageStatus: 'canceled' }, 'Twilio canceled: The message was canceled'],
  ])('%o -> ERROR 10001 "%s"', (fields, errorMessage) => {
    expect(statusEventOf({ MessageSid: SID, ...fields })).toMatchObject({
      kind: 'status',
      status: 'ERROR',
      errorCode: 10001,
      errorMessage,
    });
  });

  it.each([
    [{ MessageStatus: 'delivered' }, 'no MessageSid'],
    [{ MessageSid: SID, MessageStatus: 'received' }, 'MessageStatus received means nothing for a sent message'],
    [{ MessageSid: SID }, 'MessageStatus (none) means nothing for a sent message'],
  ])('%o is ignored: %s', (fields, reason) => {
    expect(statusEventOf(fields)).toEqual({ kind: 'ignored', reason });
  });

  it('reads the legacy SmsSid and SmsStatus when the new names are missing', () => {
    expect(statusEventOf({ SmsSid: SID, SmsStatus: 'sent' })).toMatchObject({ status: 'SENT', eventId: `${SID}:sent` });
  });
});

describe("Twilio's inbound messages (carriers.md B.5)", () => {
  const base = { MessageSid: SID, From: '+14155550101', To: '+14155550190', Body: 'hi' };

  it.each([
    [{}, { mediaUrls: [], optOut: undefined }],
    [{ NumMedia: '2', MediaUrl0: 'https://m/0', MediaUrl1: 'https://m/1' }, { mediaUrls: ['https://m/0', 'https://m/1'] }],
    [{ NumMedia: '1' }, { mediaUrls: [] }],
    [{ OptOutType: 'STOP' }, { optOut: 'opt_out' }],
    [{ OptOutType: 'start' }, { optOut: 'opt_in' }],
    [{ OptOutType: 'HELP' }, { optOut: undefined }],
  ])('%o -> %o', (fields, expected) => {
    expect(inboundOf({ ...base, ...fields })).toMatchObject({ sid: SID, from: base.From, to: base.To, content: 'hi', ...expected });
  });

  it.each(['MessageSid', 'From', 'To'])('is unreadable without %s', (field) => {
    expect(inboundOf({ ...base, [field]: '' })).toBeUndefined();
  });
});

describe('what a refused create means (carriers.md B.3)', () => {
  it.each([
    [
      400,
      21211,
      "The 'To' number +1 is not a valid phone number.",
      { retry: false, text: "Twilio 21211: The 'To' number +1 is not a valid phone number.", recipientOptedOut: false },
    ],
    [
      400,
      21610,
      'Attempt to send to unsubscribed recipient',
      { retry: false, text: 'Twilio 21610: Attempt to send to unsubscribed recipient', recipientOptedOut: true },
    ],
    [401, 20003, 'Authenticate', { retry: false, text: 'Twilio 20003: Authenticate', recipientOptedOut: false }],
    [404, undefined, '', { retry: false, text: 'Twilio HTTP 404', recipientOptedOut: false }],
    [429, 20429, 'Too Many Requests', { retry: true }],
    [503, undefined, '', { retry: true }],
  ] as const)('%i %s -> %o', (status, code, said, expected) => {
    expect(sendFailureOf(status, code, said)).toEqual(expected);
  });
});
