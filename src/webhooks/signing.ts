import { createHmac, createSecretKey, type KeyObject } from 'node:crypto';

/** The secrets a callback is signed with at a given time. */
export type SigningSecrets = {
  webhookSecret: string;
  previousWebhookSecret: string | null;
  previousWebhookSecretExpiresAt: number | null;
};

const SECRET_PREFIX = 'whsec_';

// Decoding a secret into a key costs more than a signature: keep one per secret (accounts are few, secrets rotate rarely).
const keys = new Map<string, KeyObject>();
const MAX_CACHED_KEYS = 10_000;

function keyFor(secret: string): KeyObject {
  let key = keys.get(secret);
  if (!key) {
    if (keys.size >= MAX_CACHED_KEYS) keys.clear();
    key = createSecretKey(Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64'));
    keys.set(secret, key);
  }
  return key;
}

/**
 * The Standard Webhooks signature (`v1,` and the base64 HMAC-SHA256 of id.timestamp.payload), as
 * the standardwebhooks package computes it but with node's native HMAC: the package's pure-JS
 * SHA-256 was the dispatcher's largest cost after HTTP and SQL.
 */
function sign(secret: string, webhookId: string, timestampSeconds: number, payload: string): string {
  return `v1,${createHmac('sha256', keyFor(secret)).update(`${webhookId}.${timestampSeconds}.${payload}`).digest('base64')}`;
}

/**
 * The Standard Webhooks headers of one attempt, plus `svc-signing-secret` (the secret itself) for
 * receivers written for the public service. For 24 h after a rotation the signature header carries
 * a signature with each secret, space-separated, so receivers verify with either one.
 */
export function signatureHeaders(webhookId: string, timestampMs: number, payload: string, secrets: SigningSecrets): Record<string, string> {
  const timestamp = Math.floor(timestampMs / 1000);
  const signatures = [sign(secrets.webhookSecret, webhookId, timestamp, payload)];
  const { previousWebhookSecret, previousWebhookSecretExpiresAt } = secrets;
  if (previousWebhookSecret && previousWebhookSecretExpiresAt !== null && previousWebhookSecretExpiresAt > timestampMs) {
    signatures.push(sign(previousWebhookSecret, webhookId, timestamp, payload));
  }
  return {
    'webhook-id': webhookId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signatures.join(' '),
    'svc-signing-secret': secrets.webhookSecret,
  };
}
