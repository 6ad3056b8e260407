import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SIGNATURE_WINDOW_S, signatureOf, signatureProblem } from '../../../src/transports/smsgate/signature.ts';

const KEY = 'phone-signing-key';
const BODY = JSON.stringify({
  id: 'Ey6ECgOkVVFjz3CL48B8C',
  webhookId: 'textrelay-a1b2c3d4-sms-sent',
  event: 'sms:sent',
  deviceId: 'PyDmBQZZXYmyxMwED8Fzy',
  payload: { messageId: '0f8e3c1a-5b7d-4e2f-9a6c-1d2e3f4a5b6c', phoneNumber: '+14155550101', simNumber: 1 },
});
const NOW_MS = 1_765_000_000_000;
const TS = String(NOW_MS / 1000);

/** The signature as the phone computes it, independently of textrelay's code: hex HMAC-SHA256(key, body + timestamp). */
function phoneSignature(key: string, body: string, timestamp: string): string {
  return createHmac('sha256', Buffer.from(key, 'utf8'))
    .update(Buffer.from(body + timestamp, 'utf8'))
    .digest('hex');
}

describe("signatureOf: the phone's X-Signature (carriers-smsgate.md C.4)", () => {
  it.each([
    [KEY, BODY, TS],
    ['', '', '0'],
    ['ключ', '{"text":"héllo 👋"}', '1765000000'],
  ])('is HMAC-SHA256(%j, body + timestamp) in lowercase hex', (key, body, timestamp) => {
    const signature = signatureOf(key, body, timestamp);
    expect(signature).toBe(phoneSignature(key, body, timestamp));
    expect(signature).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe("signatureProblem: whether a webhook is the phone's", () => {
  const good = { signature: phoneSignature(KEY, BODY, TS), timestamp: TS };

  it('accepts a good signature', () => {
    expect(signatureProblem(KEY, BODY, good, NOW_MS)).toBeUndefined();
  });

  it('accepts the signature in upper-case hex', () => {
    expect(signatureProblem(KEY, BODY, { ...good, signature: good.signature.toUpperCase() }, NOW_MS)).toBeUndefined();
  });

  it('refuses a signature made with another key', () => {
    expect(signatureProblem(KEY, BODY, { ...good, signature: phoneSignature('another-key', BODY, TS) }, NOW_MS)).toBe(
      'X-Signature does not match',
    );
  });

  it('refuses a body changed by one byte', () => {
    const changed = BODY.replace('sms:sent', 'sms:sens');
    expect(changed).not.toBe(BODY);
    expect(signatureProblem(KEY, changed, good, NOW_MS)).toBe('X-Signature does not match');
  });

  it('refuses a timestamp changed after signing', () => {
    expect(signatureProblem(KEY, BODY, { ...good, timestamp: String(Number(TS) + 1) }, NOW_MS)).toBe('X-Signature does not match');
  });

  it.each([
    ['a truncated signature', good.signature.slice(0, 63)],
    ['a signature one character longer', `${good.signature}0`],
    ['the signature in base64', Buffer.from(good.signature, 'hex').toString('base64')],
    ['a signature of non-hex characters', 'z'.repeat(64)],
  ])('refuses %s', (_, signature) => {
    expect(signatureProblem(KEY, BODY, { ...good, signature }, NOW_MS)).toBe('X-Signature does not match');
  });

  it.each([
    ['no X-Signature', { signature: undefined, timestamp: TS }],
    ['an empty X-Signature', { signature: '', timestamp: TS }],
    ['no X-Timestamp', { signature: good.signature, timestamp: undefined }],
    ['an empty X-Timestamp', { signature: good.signature, timestamp: '' }],
    ['neither header', { signature: undefined, timestamp: undefined }],
  ])('refuses %s', (_, headers) => {
    expect(signatureProblem(KEY, BODY, headers, NOW_MS)).toBe('missing X-Signature or X-Timestamp');
  });

  it.each(['soon', '1765000000.5', '-1765000000', '1e9', ' 1765000000', '0x69326b80', '1234567890123'])(
    'refuses the X-Timestamp %j, even when signed, as not Unix seconds',
    (timestamp) => {
      const signed = { signature: phoneSignature(KEY, BODY, timestamp), timestamp };
      expect(signatureProblem(KEY, BODY, signed, NOW_MS)).toBe('X-Timestamp is not Unix seconds');
    },
  );

  it.each([-299, -1, 0, 1, 299, 300, -300])('accepts a signed timestamp %i s from now', (offset) => {
    const timestamp = String(Number(TS) + offset);
    expect(signatureProblem(KEY, BODY, { signature: phoneSignature(KEY, BODY, timestamp), timestamp }, NOW_MS)).toBeUndefined();
  });

  it.each([-301, 301, -3600, 86_400])('refuses a signed timestamp %i s from now as a replay', (offset) => {
    const timestamp = String(Number(TS) + offset);
    expect(signatureProblem(KEY, BODY, { signature: phoneSignature(KEY, BODY, timestamp), timestamp }, NOW_MS)).toBe(
      'X-Timestamp is more than 5 minutes from now',
    );
  });

  it('measures the window in seconds against the clock given', () => {
    expect(SIGNATURE_WINDOW_S).toBe(300);
    const later = NOW_MS + 301_000;
    expect(signatureProblem(KEY, BODY, good, later)).toBe('X-Timestamp is more than 5 minutes from now');
    expect(signatureProblem(KEY, BODY, good, NOW_MS + 299_999)).toBeUndefined();
  });
});
