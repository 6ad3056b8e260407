import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { expectMessageError } from '../helpers/expect.ts';
import { ALICE, show } from '../helpers/fixtures.ts';
import { INGEST_SECRET, postIngest, signedHeaders, statusCallback } from '../helpers/ingest.ts';
import { rowCounts } from '../helpers/row-counts.ts';

/**
 * /webhooks/* write statuses and inbound messages for every account, so only a caller that knows
 * an accepted secret gets in: presented in a header, or as a Standard Webhooks signature.
 */

const RECEIVE = { message_handle: 'up-in-1', number: ALICE, to_number: '+12015550110', content: 'hi' };
const STATUS = statusCallback('up-unknown-1', 'SENT');
const ENDPOINTS: [string, Record<string, unknown>][] = [
  ['/webhooks/status', STATUS],
  ['/webhooks/receive', RECEIVE],
];

async function expectRefused(t: TestApp, path: string, body: unknown, headers: Record<string, string>) {
  const before = await rowCounts(t);
  const reply = await postIngest(t, path, body, headers);
  expectMessageError(reply, 401, 4010, { nonEmpty: true });
  expect(await rowCounts(t), `a refused call wrote rows: ${show(reply.body)}`).toEqual(before);
}

describe('ingest authentication', () => {
  it.each(ENDPOINTS)('%s refuses every caller when no secret is configured, even one presenting a secret', async (path, body) => {
    const t = makeTestApp({ ingestSecrets: [] });
    await expectRefused(t, path, body, {});
    await expectRefused(t, path, body, { 'svc-signing-secret': INGEST_SECRET });
    await expectRefused(t, path, body, { 'svc-signing-secret': '' });
    await expectRefused(t, path, body, signedHeaders(INGEST_SECRET, 'msg_1', body));
  });

  it.each(ENDPOINTS)('%s refuses a missing or wrong secret', async (path, body) => {
    const t = makeTestApp({ ingestSecrets: [INGEST_SECRET] });
    await expectRefused(t, path, body, {});
    await expectRefused(t, path, body, { 'svc-signing-secret': 'not-the-secret' });
    await expectRefused(t, path, body, { 'sb-signing-secret': `${INGEST_SECRET}x` });
    await expectRefused(t, path, body, { 'svc-api-secret-key': INGEST_SECRET });
  });

  it.each(['svc-signing-secret', 'sb-signing-secret', 'SVC-SIGNING-SECRET', 'Sb-Signing-Secret'])(
    'accepts the secret in header %s',
    async (header) => {
      const t = makeTestApp({ ingestSecrets: [INGEST_SECRET], transportName: 'upstream' });
      const status = await postIngest(t, '/webhooks/status', STATUS, { [header]: INGEST_SECRET });
      expect(status.status, show(status.body)).toBe(202);
      expect(status.body).toEqual({ status: 'OK' });
    },
  );

  it('accepts any of several configured secrets (the configured one and the one learned from the upstream)', async () => {
    const learned = 'whsec_bGVhcm5lZCBmcm9tIHRoZSB1cHN0cmVhbQ==';
    const t = makeTestApp({ ingestSecrets: [INGEST_SECRET, learned] });
    for (const secret of [INGEST_SECRET, learned]) {
      const reply = await postIngest(t, '/webhooks/status', statusCallback(`up-${secret.length}`, 'SENT'), {
        'svc-signing-secret': secret,
      });
      expect(reply.status, show(reply.body)).toBe(202);
    }
  });

  it('accepts a valid Standard Webhooks signature without the secret header', async () => {
    const t = makeTestApp({ ingestSecrets: [INGEST_SECRET] });
    const reply = await postIngest(t, '/webhooks/status', STATUS, signedHeaders(INGEST_SECRET, 'msg_signed', STATUS));
    expect(reply.status, show(reply.body)).toBe(202);
    expect((await rowCounts(t)).orphan_status_events).toBe(1);
  });

  it('uses the bytes of a secret without the whsec_ prefix as the signing key', async () => {
    const t = makeTestApp({ ingestSecrets: ['plain shared secret'] });
    const at = new Date();
    const text = JSON.stringify(STATUS);
    const headers = {
      'webhook-id': 'msg_raw',
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': new Webhook('plain shared secret', { format: 'raw' }).sign('msg_raw', at, text),
    };
    const reply = await postIngest(t, '/webhooks/status', text, headers);
    expect(reply.status, show(reply.body)).toBe(202);
  });

  it('refuses a signature made with another secret, over another body, or too old', async () => {
    const t = makeTestApp({ ingestSecrets: [INGEST_SECRET] });
    const other = `whsec_${Buffer.from('some other secret entirely').toString('base64')}`;
    await expectRefused(t, '/webhooks/status', STATUS, signedHeaders(other, 'msg_other', STATUS));

    const tampered = { ...STATUS, status: 'READ' };
    await expectRefused(t, '/webhooks/status', tampered, signedHeaders(INGEST_SECRET, 'msg_tampered', STATUS));

    const anHourAgo = new Date(Date.now() - 3_600_000);
    await expectRefused(t, '/webhooks/status', STATUS, signedHeaders(INGEST_SECRET, 'msg_old', STATUS, anHourAgo));

    const { 'webhook-signature': _, ...unsigned } = signedHeaders(INGEST_SECRET, 'msg_unsigned', STATUS);
    await expectRefused(t, '/webhooks/status', STATUS, unsigned);
  });

  it('authenticates before validating, so a stranger learns nothing about the payload rules', async () => {
    const t = makeTestApp({ ingestSecrets: [INGEST_SECRET] });
    await expectRefused(t, '/webhooks/status', '{not json', {});
    await expectRefused(t, '/webhooks/receive', { nothing: 'useful' }, { 'svc-signing-secret': 'wrong' });
  });
});
