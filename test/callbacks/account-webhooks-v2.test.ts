import { describe, expect, it } from 'vitest';
import { show } from '../helpers/fixtures.ts';
import { appWithAccount } from './setup.ts';

const PATH = '/api/account/webhooks';
const A = 'https://a.example.com/hook';
const B = 'https://b.example.com/hook';

describe('/api/account/webhooks', () => {
  it('creates receive entries by default, as strings and objects, and lists them back in the form given', async () => {
    const { t, account } = await appWithAccount();
    const created = await t.call('POST', PATH, account, {
      webhooks: [A, { url: B, secret: 'entry-secret', sendblue_numbers: ['+14155550199'] }],
      globalSecret: 'global-secret',
    });
    expect(created.status, show(created.body)).toBe(200);
    const expected = {
      receive: [A, { url: B, secret: 'entry-secret', sendblue_numbers: ['+14155550199'] }],
      globalSecret: 'global-secret',
    };
    expect(created.body).toEqual({ status: 'OK', message: expect.any(String), webhooks: expected });
    const listed = await t.call('GET', PATH, account);
    expect(listed.body).toEqual({ status: 'OK', webhooks: expected });
  });

  it('appends to the type given, never duplicating a URL, and leaves empty types out', async () => {
    const { t, account } = await appWithAccount();
    await t.call('POST', PATH, account, { webhooks: [A], type: 'outbound' });
    const again = await t.call('POST', PATH, account, { webhooks: [A, B], type: 'outbound' });
    expect(again.body.webhooks).toEqual({ outbound: [A, B] });
  });

  it('shows the receive list on the v1 /accounts/webhooks too', async () => {
    const { t, account } = await appWithAccount();
    await t.call('POST', PATH, account, { webhooks: [{ url: A }, B] });
    await t.call('POST', PATH, account, { webhooks: ['https://c.example.com/x'], type: 'typing_indicator' });
    const v1 = await t.call('GET', '/accounts/webhooks', account);
    expect(v1.body.webhooks).toEqual({ receive: [A, B] });
  });

  it('PUT replaces the types given, keeps the others, and replaces globalSecret when present', async () => {
    const { t, account } = await appWithAccount();
    await t.call('POST', PATH, account, { webhooks: [A], globalSecret: 'first' });
    await t.call('POST', PATH, account, { webhooks: [A], type: 'outbound' });
    const updated = await t.call('PUT', PATH, account, { webhooks: { outbound: [B, { url: A, secret: 's' }], contact_created: [] } });
    expect(updated.status, show(updated.body)).toBe(200);
    expect(updated.body.webhooks).toEqual({ receive: [A], outbound: [B, { url: A, secret: 's' }], globalSecret: 'first' });
    const second = await t.call('PUT', PATH, account, { webhooks: { globalSecret: 'second', outbound: [] } });
    expect(second.body.webhooks).toEqual({ receive: [A], globalSecret: 'second' });
  });

  it('DELETE takes a JSON body, removes from one type and ignores unknown URLs', async () => {
    const { t, account } = await appWithAccount();
    await t.call('POST', PATH, account, { webhooks: [A, B] });
    await t.call('POST', PATH, account, { webhooks: [A], type: 'outbound' });
    const removed = await t.call('DELETE', PATH, account, { webhooks: [A, 'https://never.example.com/'] });
    expect(removed.status, show(removed.body)).toBe(200);
    expect(removed.body).toEqual({ status: 'OK', message: expect.any(String) });
    expect((await t.call('GET', PATH, account)).body.webhooks).toEqual({ receive: [B], outbound: [A] });
    await t.call('DELETE', PATH, account, { webhooks: [A], type: 'outbound' });
    expect((await t.call('GET', PATH, account)).body.webhooks).toEqual({ receive: [B] });
  });

  it('keeps each account to its own lists', async () => {
    const { t, account } = await appWithAccount();
    const other = await t.createAccount();
    await t.call('POST', PATH, account, { webhooks: [A] });
    expect((await t.call('GET', PATH, other)).body.webhooks).toEqual({});
  });
});

describe('/api/account/webhooks: refusals', () => {
  it('an unknown type answers 400 listing the allowed types', async () => {
    const { t, account } = await appWithAccount();
    for (const [method, body] of [
      ['POST', { webhooks: [A], type: 'sent' }],
      ['DELETE', { webhooks: [A], type: 'sent' }],
      ['PUT', { webhooks: { sent: [A] } }],
    ] as const) {
      const reply = await t.call(method, PATH, account, body);
      expect(reply.status, `${method} ${show(reply.body)}`).toBe(400);
      expect(reply.body.error_code).toBe(4000);
      expect(reply.body.error_message).toContain('receive, outbound, typing_indicator');
    }
  });

  it('a URL the callback policy refuses answers 400 naming it, and nothing is stored', async () => {
    const { t, account } = await appWithAccount();
    const reply = await t.call('POST', PATH, account, { webhooks: [A, { url: 'http://169.254.169.254/latest' }] });
    expect(reply.status, show(reply.body)).toBe(400);
    expect(reply.body.error_message).toContain('webhooks[1].url');
    const put = await t.call('PUT', PATH, account, { webhooks: { outbound: ['http://169.254.169.254/x'] } });
    expect(put.status).toBe(400);
    expect(put.body.error_message).toContain('webhooks.outbound[0]');
    expect((await t.call('GET', PATH, account)).body.webhooks).toEqual({});
  });

  it('refuses a non-http URL, an empty list, sendblue_numbers outside receive, and too many entries', async () => {
    const { t, account } = await appWithAccount();
    const cases = [
      { webhooks: ['ftp://x.example.com/'] },
      { webhooks: [] },
      { webhooks: [{ url: A, sendblue_numbers: ['+14155550199'] }], type: 'outbound' },
      { webhooks: [{ url: A, sendblue_numbers: ['555'] }] },
    ];
    for (const body of cases) {
      const reply = await t.call('POST', PATH, account, body);
      expect(reply.status, `${JSON.stringify(body)} ${show(reply.body)}`).toBe(400);
    }
    const ten = Array.from({ length: 10 }, (_, i) => `https://h${i}.example.com/`);
    expect((await t.call('POST', PATH, account, { webhooks: ten })).status).toBe(200);
    const eleventh = await t.call('POST', PATH, account, { webhooks: ['https://h10.example.com/'] });
    expect(eleventh.status).toBe(400);
    expect(eleventh.body.error_message).toContain('at most 10 receive webhook URLs (TEXTRELAY_WEBHOOK_URLS_PER_TYPE)');
    expect((await t.call('GET', PATH, account)).body.webhooks.receive).toHaveLength(10);
  });

  it('needs credentials', async () => {
    const { t } = await appWithAccount();
    expect((await t.call('GET', PATH, undefined)).status).toBe(401);
  });
});
