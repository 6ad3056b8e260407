/** Calls to the transport callback endpoints (/webhooks/*) and the facts the ingest tests check. */
import { Webhook } from 'standardwebhooks';
import type { TestApp } from './app.ts';
import { type Reply, readReply } from './http.ts';

/** The secret the ingest tests configure; a `whsec_` one so it can sign Standard Webhooks too. */
export const INGEST_SECRET = `whsec_${Buffer.from('ingest secret of the tests, 32 b').toString('base64')}`;

/** POSTs `body` (JSON-encoded unless already a string) to an ingest path with exactly `headers` (plus a JSON content type). */
export async function postIngest(t: TestApp, path: string, body: unknown, headers: Record<string, string> = {}): Promise<Reply> {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return readReply(await t.app.request(path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: text }));
}

/** The Standard Webhooks headers of `body` signed with `secret`, as a sending textrelay makes them. */
export function signedHeaders(secret: string, webhookId: string, body: unknown, at = new Date()): Record<string, string> {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return {
    'webhook-id': webhookId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(webhookId, at, text),
  };
}

/** A status callback as the spec shapes it, for the message the transport knows as `handle`. */
export function statusCallback(handle: string, status: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    accountEmail: 'upstream@example.com',
    content: 'hello',
    is_outbound: true,
    media_url: '',
    status,
    error_code: null,
    error_message: null,
    message_handle: handle,
    date_sent: '2026-11-23T09:30:00.000Z',
    date_updated: '2026-11-23T09:30:01.000Z',
    from_number: '+12015550110',
    number: '+14155550100',
    to_number: '+14155550100',
    was_downgraded: false,
    plan: 'blue',
    ...extra,
  };
}
