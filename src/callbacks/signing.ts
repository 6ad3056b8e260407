import { Webhook } from 'standardwebhooks';
import { remembering } from '../domain/remembering.ts';

/** The secrets a callback is signed with at a given time. */
export type SigningSecrets = {
  webhookSecret: string;
  previousWebhookSecret: string | null;
  previousWebhookSecretExpiresAt: number | null;
};

// Building a Webhook decodes its key: keep one per secret (accounts are few, secrets rotate rarely).
// A `whsec_` secret is used as Standard Webhooks says; any other (an entry's or a globalSecret) keys with its own bytes.
const signerFor = remembering(
  (secret) => (secret.startsWith('whsec_') ? new Webhook(secret) : new Webhook(secret, { format: 'raw' })),
  10_000,
);

/**
 * The Standard Webhooks headers of one attempt, plus `svc-signing-secret` (the secret itself) for
 * receivers written for the public service. For 24 h after a rotation the signature header carries
 * a signature with each secret, space-separated, so receivers verify with either one.
 */
export function signatureHeaders(webhookId: string, timestampMs: number, payload: string, secrets: SigningSecrets): Record<string, string> {
  const timestamp = new Date(timestampMs);
  const signatures = [signerFor(secrets.webhookSecret).sign(webhookId, timestamp, payload)];
  const { previousWebhookSecret, previousWebhookSecretExpiresAt } = secrets;
  if (previousWebhookSecret && previousWebhookSecretExpiresAt !== null && previousWebhookSecretExpiresAt > timestampMs) {
    signatures.push(signerFor(previousWebhookSecret).sign(webhookId, timestamp, payload));
  }
  return {
    'webhook-id': webhookId,
    'webhook-timestamp': String(Math.floor(timestampMs / 1000)),
    'webhook-signature': signatures.join(' '),
    'svc-signing-secret': secrets.webhookSecret,
  };
}
