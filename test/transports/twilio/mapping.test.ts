import { describe, expect, it } from 'vitest';
import { inboundOf, readBackEventOf, sendFailureOf, statusEventOf } from '../../../src/transports/twilio/mapping.ts';

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

describe('a Message resource read back (GET Messages/{sid}.json) as the event its callback would be', () => {
  it.each([
    [{ status: 'queued' }, { status: 'QUEUED', errorCode: null, errorMessage: null }],
    [{ status: 'sending' }, { status: 'QUEUED', errorCode: null, errorMessage: null }],
    [
      { status: 'sent', error_code: null, error_message: null },
      { status: 'SENT', errorCode: null, errorMessage: null },
    ],
    [{ status: 'delivered' }, { status: 'DELIVERED', errorCode: null, errorMessage: null }],
    [{ status: 'read' }, { status: 'READ', errorCode: null, errorMessage: null }],
    [
      { status: 'undelivered', error_code: 30003, error_message: 'Unreachable' },
      { status: 'ERROR', errorCode: 10001, errorMessage: 'Twilio 30003: Unreachable destination handset' },
    ],
    [
      { status: 'failed', error_code: 30999, error_message: 'Something new' },
      { status: 'ERROR', errorCode: 10001, errorMessage: 'Twilio 30999: Something new' },
    ],
    [
      { status: 'failed', error_code: 30999, error_message: null },
      { status: 'ERROR', errorCode: 10001, errorMessage: 'Twilio 30999: failed' },
    ],
    [
      { status: 'canceled', error_code: null },
      { status: 'ERROR', errorCode: 10001, errorMessage: 'Twilio canceled: The message was canceled' },
    ],
  ] as const)('%o -> %o', (fields, expected) => {
    const twilioStatus = fields.status;
    expect(readBackEventOf({ sid: SID, ...fields })).toEqual({ kind: 'status', sid: SID, eventId: `${SID}:${twilioStatus}`, ...expected });
  });

  it('is the same event as the callback of the same status', () => {
    const readBack = readBackEventOf({
      sid: SID,
      status: 'undelivered',
      error_code: 30003,
      error_message: 'Unreachable destination handset',
    });
    expect(readBack).toEqual(statusEventOf({ MessageSid: SID, MessageStatus: 'undelivered', ErrorCode: '30003' }));
  });

  it.each([
    [{ sid: SID, status: 'received' }, 'MessageStatus received means nothing for a sent message'],
    [{ sid: '', status: 'sent' }, 'no MessageSid'],
  ])('%o is ignored: %s', (resource, reason) => {
    expect(readBackEventOf(resource)).toEqual({ kind: 'ignored', reason });
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
