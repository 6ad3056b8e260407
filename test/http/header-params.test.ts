import { describe, expect, it } from 'vitest';
import { recordHandover } from '../../src/services/handover.ts';
import { makeTestApp } from '../helpers/app.ts';
import { send } from '../helpers/delivery.ts';
import { INGEST_SECRET, postIngest, statusCallback } from '../helpers/ingest.ts';
import { rowCounts } from '../helpers/row-counts.ts';

/** The headers routes read one by one: a value out of bounds is a 400 naming the header, and nothing is written. */
describe('request headers', () => {
  it('refuses an Idempotency-Key out of bounds on both sends, naming it', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const before = await rowCounts(t);
    for (const key of ['', 'k'.repeat(256)]) {
      const single = await t.call(
        'POST',
        '/api/send-message',
        account,
        { number: '+14155550100', content: 'hi' },
        { 'idempotency-key': key },
      );
      expect(single.status).toBe(400);
      expect(single.body.error_code).toBe(4000);
      expect(single.body.error_message).toContain('idempotency-key');
      const group = await t.call(
        'POST',
        '/api/send-group-message',
        account,
        { numbers: ['+14155550100', '+14155550101'], content: 'hi' },
        { 'idempotency-key': key },
      );
      expect(group.status).toBe(400);
      expect(group.body.error_message).toContain('idempotency-key');
    }
    expect(await rowCounts(t)).toEqual(before);
    const accepted = await t.call(
      'POST',
      '/api/send-message',
      account,
      { number: '+14155550100', content: 'hi' },
      { 'idempotency-key': 'k'.repeat(255) },
    );
    expect(accepted.status).toBe(202);
  });

  it('refuses a webhook-id over 200 characters, naming it, and records nothing', async () => {
    const t = makeTestApp({ ingestSecrets: [INGEST_SECRET] });
    const account = await t.createAccount();
    const handle = (await send(t, account)).message_handle;
    await recordHandover(t.deps, handle, { transportHandle: 'upstream-1' });
    const before = await rowCounts(t);
    const headers = { 'svc-signing-secret': INGEST_SECRET };
    const refused = await postIngest(t, '/webhooks/status', statusCallback('upstream-1', 'SENT'), {
      ...headers,
      'webhook-id': 'w'.repeat(201),
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error_message).toContain('webhook-id');
    expect(await rowCounts(t)).toEqual(before);
    const recorded = await postIngest(t, '/webhooks/status', statusCallback('upstream-1', 'SENT'), {
      ...headers,
      'webhook-id': 'w'.repeat(200),
    });
    expect(recorded.status).toBe(200);
    expect((await t.store.messages.findByAnyHandle(handle))?.status).toBe('SENT');
  });
});
