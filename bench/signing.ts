/**
 * Signing cost per callback: the standardwebhooks package's sign (pure-JS SHA-256) against
 * signatureHeaders (node's native HMAC), CPU microseconds per signature of a callback-sized body;
 * first checks that both produce the same signature and that the package verifies ours.
 *
 *   npx tsx bench/signing.ts
 */
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { signatureHeaders } from '../src/webhooks/signing.ts';

const secret = `whsec_${randomBytes(24).toString('base64')}`;
const secrets = { webhookSecret: secret, previousWebhookSecret: null, previousWebhookSecretExpiresAt: null };
const payload = JSON.stringify({ status: 'DELIVERED', message_handle: randomBytes(18).toString('hex'), content: 'hello there '.repeat(10), date_updated: '2026-11-23T10:00:00Z' });
const webhook = new Webhook(secret);
const at = Date.now();

const ours = signatureHeaders('msg_bench', at, payload, secrets);
if (ours['webhook-signature'] !== webhook.sign('msg_bench', new Date(at), payload)) throw new Error('signatures differ');
webhook.verify(payload, ours);

const ROUNDS = 50_000;
const contenders: [string, () => unknown][] = [
  ['standardwebhooks sign', () => webhook.sign('msg_bench', new Date(at), payload)],
  ['signatureHeaders', () => signatureHeaders('msg_bench', at, payload, secrets)],
];
for (const [name, sign] of contenders) {
  for (let i = 0; i < 5_000; i += 1) sign();
  const started = process.cpuUsage();
  for (let i = 0; i < ROUNDS; i += 1) sign();
  const used = process.cpuUsage(started);
  console.log(`${name}: ${((used.user + used.system) / ROUNDS).toFixed(2)} µs CPU per signature`);
}
