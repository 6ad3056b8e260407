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
});

describe('a group id holding a NUL in the path', () => {
  it('is an unknown group (404, 4040) on both backends, for retrieve, rename and photo', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const before = await rowCounts(t);
    for (const id of ['ab%00c', '%00']) {
      const retrieve = await t.call('GET', `/api/v2/groups/${id}`, account);
      expectMessageError(retrieve, 404, 4040);
      expect(retrieve.body.error_message).toBe(`Group ${decodeURIComponent(id).replace('\u0000', '\uFFFD')} not found`);
      expectMessageError(await t.call('POST', `/api/v2/groups/${id}/name`, account, { group_name: 'x' }), 404, 4040);
      expectMessageError(await t.call('POST', `/api/v2/groups/${id}/photo`, account, { photo_url: null }), 404, 4040);
    }
    expect(await rowCounts(t)).toEqual(before);
  });
});

// What a transport reports has already reached a phone: kept, a NUL or half a surrogate pair as U+FFFD, rather than lost.

describe('a NUL or half a surrogate pair in what a transport reports at /webhooks/*', () => {
  it('is kept in a received message, in every field, the same on both backends', async () => {
    const t = makeTestApp({ ingestSecrets: [INGEST_SECRET] });
    const account = await t.createAccount();
    const line = account.numbers[0]!;
    const body = { content: 'from a phone\u0000 \ud83d', from_number: '+14155550100', to_number: line, message_handle: 'up-nul\u0000' };
    for (const attempt of [1, 2]) {
      const reply = await postIngest(t, '/webhooks/receive', body, {
        'svc-signing-secret': INGEST_SECRET,
        'webhook-id': `msg_nul${attempt}`,
      });
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    }
    const listed = await t.call('GET', '/accounts/messages', account);
    expect(listed.body.messages.map((m: { content: string }) => m.content)).toEqual(['from a phone\uFFFD \uFFFD']);
    expect(await t.store.messages.findByAnyHandle('up-nul\uFFFD')).toMatchObject({ content: 'from a phone\uFFFD \uFFFD' });
  });

  it('is kept in a status callback: its handle and its error', async () => {
    const t = makeTestApp({ ingestSecrets: [INGEST_SECRET] });
    const account = await t.createAccount();
    const sent = await t.call('POST', '/api/send-message', account, { number: '+14155550100', content: 'hi' });
    const handle = sent.body.message_handle as string;
    const report = { message_handle: handle, status: 'ERROR', error_code: 10001, error_message: 'carrier said \u0000 no' };
    for (const _ of [1, 2]) {
      const reply = await postIngest(t, '/webhooks/status', report, { 'svc-signing-secret': INGEST_SECRET, 'webhook-id': 'evt_nul' });
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    }
    const status = await t.call('GET', `/api/status?handle=${handle}&history=1`, account);
    expect(status.body).toMatchObject({ status: 'ERROR', error_message: 'carrier said \uFFFD no' });
    const orphan = await postIngest(
      t,
      '/webhooks/status',
      { message_handle: 'nobody\u0000', status: 'SENT' },
      { 'svc-signing-secret': INGEST_SECRET },
    );
    expect(orphan.status, JSON.stringify(orphan.body)).toBe(202);
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
