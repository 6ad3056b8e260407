import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { signatureHeaders } from '../../src/callbacks/signing.ts';

const WHSEC = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
/** An entry's own secret, used as its bytes: non-ASCII too, as the package takes it (one byte per character). */
const RAW = 'entry-secret-ß-ﬀ';
const PAYLOAD = JSON.stringify({ status: 'DELIVERED', content: 'héllo ✓ 😀' });

function headersAt(timestampMs: number, secrets: Partial<Parameters<typeof signatureHeaders>[3]> & { webhookSecret: string }) {
  return signatureHeaders('msg_2Kq', timestampMs, PAYLOAD, {
    previousWebhookSecret: null,
    previousWebhookSecretExpiresAt: null,
    ...secrets,
  });
}

describe('callback signatures', () => {
  const now = Date.now();

  it.each([
    ['a whsec_ secret', WHSEC, new Webhook(WHSEC)],
    ['any other secret, keyed with its own bytes', RAW, new Webhook(RAW, { format: 'raw' })],
  ])('with %s: the signature the standardwebhooks package makes, accepted by its verifier', (_, secret, webhook) => {
    const headers = headersAt(now, { webhookSecret: secret });
    expect(headers).toEqual({
      'webhook-id': 'msg_2Kq',
      'webhook-timestamp': String(Math.floor(now / 1000)),
      'webhook-signature': webhook.sign('msg_2Kq', new Date(now), PAYLOAD),
      'svc-signing-secret': secret,
    });
    expect(webhook.verify(PAYLOAD, headers)).toEqual(JSON.parse(PAYLOAD));
  });

  it('after a rotation, carries a signature with each secret until the old one expires', () => {
    const rotated = { webhookSecret: WHSEC, previousWebhookSecret: RAW, previousWebhookSecretExpiresAt: now + 1 };
    const headers = headersAt(now, rotated);
    expect(headers['webhook-signature']?.split(' ')).toHaveLength(2);
    expect(new Webhook(WHSEC).verify(PAYLOAD, headers)).toEqual(JSON.parse(PAYLOAD));
    expect(new Webhook(RAW, { format: 'raw' }).verify(PAYLOAD, headers)).toEqual(JSON.parse(PAYLOAD));

    const expired = headersAt(now, { ...rotated, previousWebhookSecretExpiresAt: now });
    expect(expired['webhook-signature']).toBe(new Webhook(WHSEC).sign('msg_2Kq', new Date(now), PAYLOAD));
    expect(() => new Webhook(RAW, { format: 'raw' }).verify(PAYLOAD, expired)).toThrow('No matching signature');
  });

  it('refuses an empty secret as the package does', () => {
    expect(() => headersAt(now, { webhookSecret: 'whsec_' })).toThrow("Secret can't be empty.");
  });
});
