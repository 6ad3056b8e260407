import { describe, expect, it } from 'vitest';
import { makeTestApp } from '../helpers/app.ts';
import { expectMessageError } from '../helpers/expect.ts';
import { INGEST_SECRET, postIngest } from '../helpers/ingest.ts';
import { rowCounts } from '../helpers/row-counts.ts';

// A NUL character no phone shows and PostgreSQL cannot store: refused alike on both backends, naming the field.

describe('text holding a NUL character', () => {
  it('is refused in a send, naming the field, and nothing is stored', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const before = await rowCounts(t);
    const reply = await t.call('POST', '/api/send-message', account, { number: '+14155550100', content: 'hello\u0000there' });
    expectMessageError(reply, 400, 4000);
    expect(reply.body.error_message).toBe('content must not contain the NUL character (\\u0000)');
    expect(await rowCounts(t)).toEqual(before);
  });

  it('is refused in a nested field and in a query', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const bulk = await t.call('POST', '/api/v2/contacts/bulk', account, {
      contacts: [{ phone: '+14155550100' }, { phone: '+14155550101', first_name: 'Ann\u0000' }],
    });
    expect(bulk.status).toBe(400);
    expect(JSON.stringify(bulk.body)).toContain('contacts[1].first_name must not contain the NUL character');
    const status = await t.call('GET', `/api/status?handle=${encodeURIComponent('abc\u0000')}`, account);
    expect(status.status).toBe(400);
    expect(status.body.error_message).toBe('handle must not contain the NUL character (\\u0000)');
  });

  it('is refused at ingest, so that a provider sees a 400 rather than a failure to retry', async () => {
    const t = makeTestApp({ ingestSecrets: [INGEST_SECRET] });
    const reply = await postIngest(
      t,
      '/webhooks/receive',
      { content: 'from a phone\u0000', from_number: '+14155550100', to_number: '+14155550111', message_handle: 'up-nul' },
      { 'svc-signing-secret': INGEST_SECRET, 'webhook-id': 'msg_nul' },
    );
    expect(reply.status).toBe(400);
    expect(JSON.stringify(reply.body)).toContain('content must not contain the NUL character');
  });
});

describe('text PostgreSQL cannot store', () => {
  it('is refused in a tag (an unpaired surrogate) and in a custom variable key (a NUL), naming the field', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const before = await rowCounts(t);
    const tag = await t.call('POST', '/api/v2/contacts', account, { number: '+14155550100', tags: ['vip', 'half \ud83d'] });
    expectMessageError(tag, 400, 4000);
    expect(tag.body.error_message).toMatch(/^tags\[1\] must not contain an unpaired surrogate/);
    const key = await t.call('POST', '/api/v2/contacts', account, { number: '+14155550100', custom_variables: { 'a\u0000b': 'x' } });
    expectMessageError(key, 400, 4000);
    expect(key.body.error_message).toMatch(/^custom_variables must not have a key containing the NUL character/);
    const lone = await t.call('POST', '/api/v2/contacts', account, { number: '+14155550100', custom_variables: { '\udc00': 'x' } });
    expectMessageError(lone, 400, 4000);
    expect(lone.body.error_message).toMatch(/^custom_variables must not have a key containing an unpaired surrogate/);
    expect(await rowCounts(t)).toEqual(before);
  });

  it('accepts a well-formed pair (an emoji) in a tag and a key', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const reply = await t.call('POST', '/api/v2/contacts', account, {
      number: '+14155550100',
      tags: ['🙂'],
      custom_variables: { '🙂': '🙂' },
    });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body.contact).toMatchObject({ tags: ['🙂'], custom_variables: { '🙂': '🙂' } });
  });
});
