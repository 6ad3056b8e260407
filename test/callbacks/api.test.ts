import { describe, expect, it } from 'vitest';
import type { TestAccount, TestApp } from '../helpers/app.ts';
import { expectMessageError } from '../helpers/expect.ts';
import { show } from '../helpers/fixtures.ts';
import { appWithAccount, dispatcherFor, receiver, sendWithCallback } from './setup.ts';

async function settings(t: TestApp, account: TestAccount) {
  const reply = await t.call('GET', '/accounts/webhooks', account);
  expect(reply.status, show(reply.body)).toBe(200);
  return reply.body;
}

describe('webhook settings API', () => {
  it('adds, lists and removes receive webhooks; the secret is created once and kept', async () => {
    const { t, account } = await appWithAccount();
    const added = await t.call('POST', '/accounts/webhooks', account, {
      webhooks: ['https://a.example.com/in', 'https://b.example.com/in', 'https://a.example.com/in'],
      type: 'receive',
    });
    expect(added.status, show(added.body)).toBe(200);
    expect(added.body).toEqual({
      status: 'OK',
      webhooks: { receive: ['https://a.example.com/in', 'https://b.example.com/in'] },
      secret: expect.stringMatching(/^whsec_/),
    });
    expect(Buffer.from(added.body.secret.slice('whsec_'.length), 'base64')).toHaveLength(24);
    expect(await settings(t, account)).toEqual(added.body);

    const removed = await t.call('DELETE', '/accounts/webhooks', account, { webhooks: ['https://a.example.com/in'], type: 'receive' });
    expect(removed.status, show(removed.body)).toBe(200);
    expect(removed.body).toEqual({ status: 'OK', webhooks: { receive: ['https://b.example.com/in'] }, secret: added.body.secret });
    const again = await t.call('DELETE', '/accounts/webhooks', account, { webhooks: ['https://a.example.com/in'], type: 'receive' });
    expect(again.body, 'removing twice answers the same').toEqual(removed.body);
  });

  it('takes one URL as {url, type} too, the way the public service documents it', async () => {
    const { t, account } = await appWithAccount();
    const added = await t.call('POST', '/accounts/webhooks', account, { url: 'https://a.example.com/in', type: 'receive' });
    expect(added.status, show(added.body)).toBe(200);
    expect(added.body.webhooks).toEqual({ receive: ['https://a.example.com/in'] });
    const removed = await t.call('DELETE', '/accounts/webhooks', account, { url: 'https://a.example.com/in', type: 'receive' });
    expect(removed.body.webhooks, show(removed.body)).toEqual({ receive: [] });
  });

  it.each([
    [{ url: 'https://example.com/x', webhooks: ['https://example.com/y'], type: 'receive' }],
    [{ type: 'receive' }],
    [{ url: 'not a url', type: 'receive' }],
    [{ webhooks: ['ftp://example.com/x'], type: 'receive' }],
    [{ webhooks: ['not a url'], type: 'receive' }],
    [{ webhooks: [], type: 'receive' }],
    [{ webhooks: ['https://example.com/x'], type: 'status' }],
    [{ webhooks: ['https://example.com/x'] }],
    [{ webhooks: 'https://example.com/x', type: 'receive' }],
    [{ webhooks: [`https://example.com/${'x'.repeat(2100)}`], type: 'receive' }],
    [{ webhooks: Array.from({ length: 11 }, (_, i) => `https://example.com/${i}`), type: 'receive' }],
  ])('refuses %j with 400/4000 and writes nothing', async (body) => {
    const { t, account } = await appWithAccount();
    const reply = await t.call('POST', '/accounts/webhooks', account, body);
    expectMessageError(reply, 400, 4000, { nonEmpty: true });
    expect((await settings(t, account)).webhooks.receive).toEqual([]);
  });

  it('refuses a malformed JSON body with 400/4000', async () => {
    const { t, account } = await appWithAccount();
    const reply = await t.call('POST', '/accounts/webhooks', account, undefined, { 'content-type': 'application/json' });
    expectMessageError(reply, 400, 4000);
  });

  it('caps the account at 10 receive webhooks across requests', async () => {
    const { t, account } = await appWithAccount();
    const urls = Array.from({ length: 10 }, (_, i) => `https://example.com/${i}`);
    expect((await t.call('POST', '/accounts/webhooks', account, { webhooks: urls, type: 'receive' })).status).toBe(200);
    const over = await t.call('POST', '/accounts/webhooks', account, { webhooks: ['https://example.com/extra'], type: 'receive' });
    expectMessageError(over, 400, 4000);
    expect((await settings(t, account)).webhooks.receive).toHaveLength(10);
  });

  it.each([
    ['GET', '/accounts/webhooks'],
    ['POST', '/accounts/webhooks'],
    ['DELETE', '/accounts/webhooks'],
    ['POST', '/accounts/webhooks/secret'],
    ['GET', '/accounts/webhooks/deliveries'],
    ['POST', '/accounts/webhooks/deliveries/msg_x/replay'],
  ])('%s %s needs credentials (401/4010)', async (method, path) => {
    const { t } = await appWithAccount();
    const body =
      method === 'GET' || path.endsWith('replay') || path.endsWith('secret')
        ? undefined
        : { webhooks: ['https://e.com/x'], type: 'receive' };
    const reply = await t.call(method, path, undefined, body);
    expectMessageError(reply, 401, 4010);
    const wrong = await t.call(
      method,
      path,
      { headers: { 'svc-api-key-id': 'key_x', 'svc-api-secret-key': 'sk_x' } } as unknown as TestAccount,
      body,
    );
    expectMessageError(wrong, 401, 4010);
  });

  it('keeps accounts apart: their own URLs and secrets', async () => {
    const { t, account } = await appWithAccount();
    const other = await t.createAccount();
    await t.call('POST', '/accounts/webhooks', account, { webhooks: ['https://a.example.com/in'], type: 'receive' });
    const theirs = await settings(t, other);
    expect(theirs.webhooks.receive).toEqual([]);
    expect(theirs.secret).not.toBe((await settings(t, account)).secret);
    await t.call('DELETE', '/accounts/webhooks', other, { webhooks: ['https://a.example.com/in'], type: 'receive' });
    expect((await settings(t, account)).webhooks.receive).toEqual(['https://a.example.com/in']);
  });
});

describe('deliveries API', () => {
  it('lists deliveries with their attempts, filtered by state and paged', async () => {
    const { t, account } = await appWithAccount();
    const ok = await receiver();
    const gone = await receiver((_request, _index, response) => response.writeHead(410).end('gone'));
    await sendWithCallback(t, account, ok.url());
    await sendWithCallback(t, account, gone.url());
    await sendWithCallback(t, account, ok.url());
    await dispatcherFor(t).runOnce();

    const all = await t.call('GET', '/accounts/webhooks/deliveries', account);
    expect(all.status, show(all.body)).toBe(200);
    expect(all.body.deliveries.map((d: any) => d.state)).toEqual(['delivered', 'failed', 'delivered']);
    const failed = await t.call('GET', '/accounts/webhooks/deliveries?state=failed', account);
    expect(failed.body.deliveries).toHaveLength(1);
    expect(failed.body.deliveries[0]).toMatchObject({
      url: gone.url(),
      event_type: 'message.status',
      attempts: [{ status_code: 410, response_excerpt: 'gone' }],
      payload: { status: 'QUEUED' },
    });
    const page = await t.call('GET', '/accounts/webhooks/deliveries?limit=1&offset=1', account);
    expect(page.body.deliveries.map((d: any) => d.id)).toEqual([all.body.deliveries[1].id]);
    for (const query of ['?state=lost', '?limit=0', '?offset=-1', '?limit=abc']) {
      expectMessageError(await t.call('GET', `/accounts/webhooks/deliveries${query}`, account), 400, 4000);
    }
  });

  it("replays a failed delivery with the same webhook-id; another account's id is 404", async () => {
    const { t, account } = await appWithAccount();
    const other = await t.createAccount();
    let down = true;
    const hook = await receiver((_request, _index, response) => response.writeHead(down ? 410 : 200).end());
    await sendWithCallback(t, account, hook.url());
    const dispatcher = dispatcherFor(t);
    await dispatcher.runOnce();
    const [failed] = await (await t.call('GET', '/accounts/webhooks/deliveries', account)).body.deliveries;
    expect(failed.state).toBe('failed');

    expectMessageError(await t.call('POST', `/accounts/webhooks/deliveries/${failed.id}/replay`, other), 404, 4040);
    expectMessageError(await t.call('POST', '/accounts/webhooks/deliveries/msg_unknown/replay', account), 404, 4040);
    expect((await t.call('GET', '/accounts/webhooks/deliveries', other)).body.deliveries).toEqual([]);

    const replayed = await t.call('POST', `/accounts/webhooks/deliveries/${failed.id}/replay`, account);
    expect(replayed.status, show(replayed.body)).toBe(200);
    expect(replayed.body.delivery).toMatchObject({ id: failed.id, state: 'pending', attempt_count: 0, completed_at: null });
    expect(replayed.body.delivery.attempts, 'the attempt log is kept').toHaveLength(1);

    down = false;
    expect(await dispatcher.runOnce()).toBe(1);
    expect(hook.received.map((request) => request.headers['webhook-id'])).toEqual([failed.id, failed.id]);
    const [after] = await (await t.call('GET', '/accounts/webhooks/deliveries', account)).body.deliveries;
    expect(after).toMatchObject({ state: 'delivered', attempt_count: 1 });
    expect(after.attempts.map((a: any) => a.status_code)).toEqual([410, 200]);
  });
});
