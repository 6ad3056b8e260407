import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { recordHandover } from '../../src/services/handover.ts';
import { makeTestApp } from '../helpers/app.ts';
import { send } from '../helpers/delivery.ts';
import { ALICE, BOB, show } from '../helpers/fixtures.ts';
import { INGEST_SECRET, postIngest } from '../helpers/ingest.ts';
import { rowCounts } from '../helpers/row-counts.ts';

/**
 * Whatever an authenticated caller posts to /webhooks/*, the answer is never a 5xx; a refusal is
 * the documented message-error body and writes no row.
 */

const FIELDS = [
  'message_handle',
  'status',
  'error_code',
  'error_message',
  'was_downgraded',
  'number',
  'from_number',
  'to_number',
  'content',
  'media_url',
  'group_id',
  'participants',
  'service',
  'is_outbound',
];

describe('ingest over generated payloads', () => {
  it('never answers 5xx, and every refusal has the error shape and writes nothing', async () => {
    const t = makeTestApp({ ingestSecrets: [INGEST_SECRET], transportName: 'upstream' });
    const account = await t.createAccount();
    const line = account.numbers[0]!;
    await recordHandover(t.deps, (await send(t, account)).message_handle, { transportHandle: 'up-known' });

    const plausible = fc.oneof(
      fc.constantFrom(
        'up-known',
        'up-unknown',
        '',
        ALICE,
        BOB,
        line,
        '911',
        '+1',
        'QUEUED',
        'SENT',
        'DELIVERED',
        'READ',
        'ERROR',
        'FAILED',
        'sent',
      ),
      fc.constantFrom('iMessage', 'SMS', 'https://cdn.example.com/a.jpg', 'group-1', null, true, false, 0, 10001, -1, 1.5),
      fc.array(fc.constantFrom(ALICE, BOB, line, 'x'), { maxLength: 4 }),
      fc.string({ maxLength: 30 }),
      fc.anything({ maxDepth: 2 }),
    );
    const body = fc.oneof(
      {
        weight: 4,
        arbitrary: fc.dictionary(fc.constantFrom(...FIELDS), plausible, { maxKeys: FIELDS.length }).map((value) => JSON.stringify(value)),
      },
      { weight: 1, arbitrary: fc.json() },
      { weight: 1, arbitrary: fc.string({ maxLength: 60 }) },
    );

    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('/webhooks/status', '/webhooks/receive'),
        body,
        fc.option(fc.string({ maxLength: 20 })),
        async (path, text, webhookId) => {
          const before = await rowCounts(t);
          const headers: Record<string, string> = { 'svc-signing-secret': INGEST_SECRET };
          if (webhookId !== null) headers['webhook-id'] = webhookId;
          const reply = await postIngest(t, path, text, headers);
          const context = `${path} ${show(text)} -> ${reply.status} ${show(reply.body)}`;

          expect(reply.status, context).toBeLessThan(500);
          if (reply.status < 300) {
            expect(reply.body, context).toEqual({ status: 'OK' });
          } else {
            expect(reply.body, context).toEqual({
              status: 'ERROR',
              error_code: expect.any(Number),
              error_message: expect.any(String),
              message: reply.body.error_message,
              error_detail: null,
            });
            expect(await rowCounts(t), `a refusal wrote rows: ${context}`).toEqual(before);
          }
        },
      ),
      { numRuns: 400 },
    );
  });
});
