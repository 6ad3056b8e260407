import { describe, expect, it } from 'vitest';
import {
  inboundHandleOf,
  inboxEventOf,
  inboxHexOf,
  phoneFailureText,
  sendFailureOf,
  stateEventOf,
  webhookEventOf,
} from '../../../src/transports/smsgate/mapping.ts';

const ID = '0f8e3c1a-5b7d-4e2f-9a6c-1d2e3f4a5b6c';
const LIMIT_HINT = " (Android's limit of about 30 SMS a minute per app: set the app's message limits so the phone paces its sends)";

describe("SMSGate's webhooks in textrelay's statuses (carriers-smsgate.md C.4)", () => {
  it.each([
    ['sms:sent', 'SENT'],
    ['sms:delivered', 'DELIVERED'],
  ] as const)('%s -> %s, one event per (messageId, event)', (event, status) => {
    expect(webhookEventOf({ event, payload: { messageId: ID } })).toEqual({
      kind: 'status',
      handle: ID,
      status,
      eventId: `${ID}|${event}`,
      errorCode: null,
      errorMessage: null,
    });
  });

  it.each([
    [{ event: 'sms:failed', reason: 'RESULT_ERROR_GENERIC_FAILURE' }, 'SMSGate: RESULT_ERROR_GENERIC_FAILURE'],
    [{ event: 'sms:failed', reason: '  no service  ' }, 'SMSGate: no service'],
    [{ event: 'sms:failed', reason: null }, 'SMSGate: the phone reported a failure without a reason'],
    [{ event: 'sms:failed' }, 'SMSGate: the phone reported a failure without a reason'],
    [{ event: 'sms:failed', reason: 'RESULT_ERROR_LIMIT_EXCEEDED' }, `SMSGate: RESULT_ERROR_LIMIT_EXCEEDED${LIMIT_HINT}`],
    [{ event: 'sms:cancelled' }, 'SMSGate: the message was cancelled on the phone'],
    [{ event: 'sms:cancelled', reason: 'ignored reason' }, 'SMSGate: the message was cancelled on the phone'],
  ] as [{ event: string; reason?: string | null }, string][])('%o -> ERROR 10001 "%s"', ({ event, reason }, errorMessage) => {
    expect(webhookEventOf({ event, payload: { messageId: ID, reason } })).toEqual({
      kind: 'status',
      handle: ID,
      status: 'ERROR',
      eventId: `${ID}|${event}`,
      errorCode: 10001,
      errorMessage,
    });
  });

  it('an sms:received is an inbound SMS from its sender, its handle the messageId in lower case', () => {
    expect(
      webhookEventOf({ event: 'sms:received', payload: { messageId: 'A1B2C3D4', sender: '+14155550101', message: 'hi there' } }),
    ).toEqual({
      kind: 'inbound',
      handle: 'smsgate:a1b2c3d4',
      from: '+14155550101',
      content: 'hi there',
    });
  });

  it('an sms:received without text is an empty SMS, not an error', () => {
    expect(webhookEventOf({ event: 'sms:received', payload: { messageId: 'ff', sender: '+14155550101', message: null } })).toMatchObject({
      kind: 'inbound',
      content: '',
    });
  });

  it.each([
    [{ event: 'sms:sent', payload: {} }, 'sms:sent without a messageId'],
    [{ event: 'sms:delivered', payload: { messageId: null } }, 'sms:delivered without a messageId'],
    [{ event: 'sms:failed', payload: { messageId: '' } }, 'sms:failed without a messageId'],
    [{ event: 'sms:received', payload: { sender: '+14155550101' } }, 'sms:received without a messageId'],
    [{ event: 'sms:received', payload: { messageId: 'ab12' } }, 'sms:received without a sender'],
    [{ event: 'sms:received', payload: { messageId: 'ab12', sender: '' } }, 'sms:received without a sender'],
    [{ event: 'sms:data-received', payload: { messageId: ID } }, 'sms:data-received is not an event textrelay registers'],
    [{ event: 'system:ping', payload: { messageId: ID } }, 'system:ping is not an event textrelay registers'],
    [{ event: 'mms:received', payload: { messageId: ID, sender: '+14155550101' } }, 'mms:received is not an event textrelay registers'],
  ])('%o is ignored: %s', (envelope, reason) => {
    expect(webhookEventOf(envelope)).toEqual({ kind: 'ignored', reason });
  });
});

describe('a message read back (GET /messages/{id}) as the event its webhook would be (C.3)', () => {
  const recipient = (state: string, error?: string | null) => ({ phoneNumber: '+14155550101', state, error });

  it.each(['Pending', 'Processed', 'Cancelling'])('%s is not final yet: ignored', (state) => {
    expect(stateEventOf({ id: ID, state, recipients: [recipient(state)] })).toEqual({
      kind: 'ignored',
      reason: `the message is still ${state} on the phone`,
    });
  });

  it.each([
    ['Sent', 'SENT', 'sms:sent'],
    ['Delivered', 'DELIVERED', 'sms:delivered'],
  ] as const)('%s -> %s (event %s)', (state, status, event) => {
    expect(stateEventOf({ id: ID, state, recipients: [recipient(state)] })).toEqual({
      kind: 'status',
      handle: ID,
      status,
      eventId: `${ID}|${event}`,
      errorCode: null,
      errorMessage: null,
    });
  });

  it.each([
    [recipient('Failed', 'RESULT_ERROR_NO_SERVICE'), 'sms:failed', 'SMSGate: RESULT_ERROR_NO_SERVICE'],
    [recipient('Failed', null), 'sms:failed', 'SMSGate: the phone reported a failure without a reason'],
    [recipient('Failed', 'RESULT_ERROR_LIMIT_EXCEEDED'), 'sms:failed', `SMSGate: RESULT_ERROR_LIMIT_EXCEEDED${LIMIT_HINT}`],
    [recipient('Cancelled'), 'sms:cancelled', 'SMSGate: the message was cancelled on the phone'],
  ])("%o -> ERROR 10001 with the recipient's error", (r, event, errorMessage) => {
    expect(stateEventOf({ id: ID, state: r.state, recipients: [r] })).toEqual({
      kind: 'status',
      handle: ID,
      status: 'ERROR',
      eventId: `${ID}|${event}`,
      errorCode: 10001,
      errorMessage,
    });
  });

  it("the recipient decides: a message-level Sent with a failed recipient is the recipient's failure", () => {
    expect(stateEventOf({ id: ID, state: 'Sent', recipients: [recipient('Failed', 'RESULT_ERROR_RADIO_OFF')] })).toMatchObject({
      status: 'ERROR',
      eventId: `${ID}|sms:failed`,
      errorMessage: 'SMSGate: RESULT_ERROR_RADIO_OFF',
    });
  });

  it('the recipient decides also the other way: a message-level Processed with a delivered recipient is DELIVERED', () => {
    expect(stateEventOf({ id: ID, state: 'Processed', recipients: [recipient('Delivered')] })).toMatchObject({
      status: 'DELIVERED',
      eventId: `${ID}|sms:delivered`,
    });
  });

  it.each([
    [{ id: ID, state: 'Delivered' }, 'DELIVERED'],
    [{ id: ID, state: 'Sent', recipients: null }, 'SENT'],
    [{ id: ID, state: 'Failed', recipients: [] }, 'ERROR'],
  ] as const)('without recipients the message-level state decides: %o -> %s', (message, status) => {
    expect(stateEventOf(message)).toMatchObject({ kind: 'status', status });
  });

  it.each([
    [{ id: ID, state: 'Exploded', recipients: [recipient('Exploded')] }, 'state Exploded means nothing for a sent message'],
    [{ id: ID, state: 'sent' }, 'state sent means nothing for a sent message'],
    [{ id: ID, state: '' }, 'state (none) means nothing for a sent message'],
  ])('%o is ignored: %s', (message, reason) => {
    expect(stateEventOf(message)).toEqual({ kind: 'ignored', reason });
  });
});

describe('a read-back and a webhook of the same state are one event (C.9)', () => {
  it.each([
    ['Sent', { event: 'sms:sent', payload: { messageId: ID } }],
    ['Delivered', { event: 'sms:delivered', payload: { messageId: ID } }],
    ['Cancelled', { event: 'sms:cancelled', payload: { messageId: ID } }],
  ])('%s', (state, envelope) => {
    const readBack = stateEventOf({ id: ID, state, recipients: [{ state }] });
    expect(readBack).toEqual(webhookEventOf(envelope));
  });

  it('Failed with the same reason', () => {
    const readBack = stateEventOf({ id: ID, state: 'Failed', recipients: [{ state: 'Failed', error: 'RESULT_ERROR_NULL_PDU' }] });
    expect(readBack).toEqual(webhookEventOf({ event: 'sms:failed', payload: { messageId: ID, reason: 'RESULT_ERROR_NULL_PDU' } }));
  });

  it('Failed with a different reason has the same event id, so the second is a duplicate', () => {
    const readBack = stateEventOf({ id: ID, state: 'Failed', recipients: [{ state: 'Failed', error: 'one reason' }] });
    const webhook = webhookEventOf({ event: 'sms:failed', payload: { messageId: ID, reason: 'another reason' } });
    expect(readBack.kind === 'status' && webhook.kind === 'status' && readBack.eventId === webhook.eventId).toBe(true);
  });
});

describe("the phone's inbox (GET /inbox, C.5) and its webhook ids", () => {
  it.each([
    ['text:0', '0'],
    ['text:1', '1'],
    ['text:255', 'ff'],
    ['text:-1', 'ffffffff'],
    ['text:-123', 'ffffff85'],
    ['text:2147483647', '7fffffff'],
    ['text:-2147483648', '80000000'],
    ['text:-2147483647', '80000001'],
    ['text:123456789', '75bcd15'],
  ])('%s <-> webhook messageId %s', (inboxId, hex) => {
    expect(inboxHexOf(inboxId)).toBe(hex);
    const n = Number(inboxId.slice('text:'.length));
    expect((n >>> 0).toString(16)).toBe(hex);
  });

  it.each([
    'text:2147483648',
    'text:-2147483649',
    'text:4294967295',
    'text:99999999999',
    'text:',
    'text:abc',
    'text:12a',
    'text:1.5',
    'text:+5',
    'text: 5',
    'data:123',
    'mms:123',
    '123',
    '',
    'TEXT:123',
    'text:-',
  ])('%j is not an inbox id textrelay reads', (inboxId) => {
    expect(inboxHexOf(inboxId)).toBeUndefined();
  });

  const item = { id: 'text:-123', type: 'SMS', sender: '+14155550101', contentPreview: 'the whole text' };

  it('an inbox SMS is the inbound its sms:received webhook would be', () => {
    const fromInbox = inboxEventOf(item);
    expect(fromInbox).toEqual({ kind: 'inbound', handle: 'smsgate:ffffff85', from: '+14155550101', content: 'the whole text' });
    expect(fromInbox).toEqual(
      webhookEventOf({ event: 'sms:received', payload: { messageId: 'ffffff85', sender: '+14155550101', message: 'the whole text' } }),
    );
  });

  it.each([
    [{ ...item, id: 'text:2147483647' }, 'smsgate:7fffffff'],
    [{ ...item, id: 'text:-2147483648' }, 'smsgate:80000000'],
  ])('boundary %o -> %s', (boundary, handle) => {
    expect(inboxEventOf(boundary)).toMatchObject({ kind: 'inbound', handle });
  });

  it.each([
    [{ ...item, type: 'MMS' }, 'inbox item text:-123 is not an SMS textrelay reads'],
    [{ ...item, type: 'DATA_SMS' }, 'inbox item text:-123 is not an SMS textrelay reads'],
    [{ ...item, type: 'sms' }, 'inbox item text:-123 is not an SMS textrelay reads'],
    [{ ...item, id: 'mms:42' }, 'inbox item mms:42 is not an SMS textrelay reads'],
    [{ ...item, id: 'text:2147483648' }, 'inbox item text:2147483648 is not an SMS textrelay reads'],
    [{ ...item, id: 'junk' }, 'inbox item junk is not an SMS textrelay reads'],
    [{ ...item, sender: '' }, 'inbox item text:-123 has no sender'],
  ])('%o is ignored: %s', (junk, reason) => {
    expect(inboxEventOf(junk)).toEqual({ kind: 'ignored', reason });
  });

  it('the inbound handle is the hex in lower case, so an upper-case webhook id is the same SMS', () => {
    expect(inboundHandleOf('FFFFFF85')).toBe(inboundHandleOf('ffffff85'));
  });
});

describe('what a refused POST /messages means (C.7)', () => {
  it.each([
    [400, 'phoneNumbers: invalid', { kind: 'refused', text: 'SMSGate HTTP 400: phoneNumbers: invalid' }],
    [401, 'Unauthorized', { kind: 'refused', text: 'SMSGate HTTP 401: Unauthorized' }],
    [404, '', { kind: 'refused', text: 'SMSGate HTTP 404' }],
    [404, '   ', { kind: 'refused', text: 'SMSGate HTTP 404' }],
    [409, 'message with this id already exists', { kind: 'already-there' }],
    [429, 'Too Many Requests', { kind: 'retry' }],
    [500, 'Internal Server Error', { kind: 'retry' }],
    [503, '', { kind: 'retry' }],
  ] as const)('%i %j -> %o', (status, said, expected) => {
    expect(sendFailureOf(status, said)).toEqual(expected);
  });
});

describe("the phone's failure reason as error_message", () => {
  it.each([
    ['', 'SMSGate: the phone reported a failure without a reason'],
    ['   ', 'SMSGate: the phone reported a failure without a reason'],
    ['RESULT_ERROR_GENERIC_FAILURE', 'SMSGate: RESULT_ERROR_GENERIC_FAILURE'],
    ['RESULT_ERROR_LIMIT_EXCEEDED', `SMSGate: RESULT_ERROR_LIMIT_EXCEEDED${LIMIT_HINT}`],
    ['sending failed: limit_exceeded by app', `SMSGate: sending failed: limit_exceeded by app${LIMIT_HINT}`],
    ['LIMIT reached', 'SMSGate: LIMIT reached'],
  ])('%j -> %j', (reason, text) => {
    expect(phoneFailureText(reason)).toBe(text);
  });
});
