import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.ts';
import { makeTestApp } from '../helpers/app.ts';
import { ALICE, show } from '../helpers/fixtures.ts';

type Line = Record<string, unknown> & { level: number; msg: string };

/** The app's log lines, parsed, kept in memory at `level`. */
function loggedApp(level = 'info') {
  const lines: Line[] = [];
  const raw: string[] = [];
  const log = createLogger(level, {
    write(line: string) {
      raw.push(line);
      lines.push(JSON.parse(line) as Line);
    },
  });
  return { t: makeTestApp({ log }), lines, raw };
}

const accessLines = (lines: Line[]) => lines.filter((line) => line.msg === 'request');
const GENERATED_ID = /^req_[0-9a-f]{32}$/;

describe('request ids', () => {
  it("keeps a well-formed x-request-id, answers it, and tags the request's access line with it", async () => {
    const { t, lines } = loggedApp();
    const account = await t.createAccount();
    const reply = await t.call(
      'POST',
      '/api/send-message',
      account,
      { number: ALICE, content: 'hi' },
      { 'x-request-id': 'checkout-42.retry:1' },
    );
    expect(reply.status, show(reply.body)).toBe(202);
    expect(reply.headers.get('x-request-id')).toBe('checkout-42.retry:1');
    expect(accessLines(lines)).toEqual([
      expect.objectContaining({
        level: 30,
        requestId: 'checkout-42.retry:1',
        method: 'POST',
        route: '/api/send-message',
        path: '/api/send-message',
        status: 202,
        durationMs: expect.any(Number),
      }),
    ]);
  });

  it('replaces an id that is too long or carries other characters, and makes one when none is given', async () => {
    const { t, lines } = loggedApp();
    const given = ['x'.repeat(129), 'two words', '{"level":60}', ''];
    for (const id of given) {
      const reply = await t.app.request('/healthz', { headers: id === '' ? {} : { 'x-request-id': id } });
      expect(reply.headers.get('x-request-id'), id).toMatch(GENERATED_ID);
    }
    const ids = await Promise.all([1, 2].map(async () => (await t.app.request('/healthz')).headers.get('x-request-id')));
    expect(ids[0]).not.toBe(ids[1]);
    // Health probes log at debug: none of these reached the info log.
    expect(accessLines(lines)).toEqual([]);
  });

  it("tags the request's lines (an unhandled error's and the access line) with the id, and answers errors with it", async () => {
    const { t, lines } = loggedApp();
    const account = await t.createAccount();
    // The database going away makes the next request fail inside the services: the error handler logs it.
    t.db.$client.close();
    const reply = await t.call('GET', '/accounts/messages', account, undefined, { 'x-request-id': 'broken-1' });
    expect(reply.status).toBe(500);
    expect(reply.headers.get('x-request-id')).toBe('broken-1');
    expect(lines.map((line) => [line.msg, line.level, line.requestId])).toEqual([
      ['unhandled error', 50, 'broken-1'],
      ['request', 40, 'broken-1'],
    ]);
  });

  it('never mixes the ids of concurrent requests', async () => {
    const { t, lines } = loggedApp();
    const account = await t.createAccount();
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        t.call('GET', `/accounts/contacts/contact-${i}`, account, undefined, { 'x-request-id': `parallel-${i}` }),
      ),
    );
    for (const [i, reply] of replies.entries()) expect(reply.headers.get('x-request-id')).toBe(`parallel-${i}`);
    const access = accessLines(lines);
    expect(access).toHaveLength(20);
    for (const line of access) expect(line.path).toBe(`/accounts/contacts/contact-${String(line.requestId).slice('parallel-'.length)}`);
  });
});

describe('what logs never hold', () => {
  it('no API secret, webhook secret or message content, even at debug level', async () => {
    const { t, raw } = loggedApp('debug');
    const account = await t.createAccount();
    const content = 'the door code is 4471, do not share';
    const sent = await t.call('POST', '/api/send-message', account, { number: ALICE, content, status_callback: 'http://127.0.0.1:9/cb' });
    expect(sent.status, show(sent.body)).toBe(202);
    const rotated = await t.call('POST', '/accounts/webhooks/secret', account);
    expect(rotated.status, show(rotated.body)).toBe(200);
    await t.call('GET', `/api/status?handle=${sent.body.message_handle as string}&history=1`, account);
    await t.call('GET', '/accounts/messages', account, undefined, { 'svc-api-secret-key': 'sk_wrong_secret_value' });

    const everything = raw.join('');
    expect(raw.length).toBeGreaterThanOrEqual(4);
    for (const secret of [account.api_secret_key, rotated.body.secret as string, content, 'sk_wrong_secret_value', ALICE]) {
      expect(everything).not.toContain(secret);
    }
  });

  it('redacts secrets and content should a log call ever pass them', () => {
    const raw: string[] = [];
    const log = createLogger('info', { write: (line: string) => raw.push(line) });
    log.info({
      api_secret_key: 'sk_1',
      account: { apiSecretHash: 'hash_1', webhookSecret: 'whsec_1' },
      message: { content: 'private words' },
      req: { headers: { 'svc-api-secret-key': 'sk_2', 'webhook-signature': 'v1,sig', cookie: 'session=abc' } },
    });
    const line = JSON.parse(raw[0]!) as Record<string, any>;
    expect(line.api_secret_key).toBe('[redacted]');
    expect(line.account).toEqual({ apiSecretHash: '[redacted]', webhookSecret: '[redacted]' });
    expect(line.message).toEqual({ content: '[redacted]' });
    expect(line.req.headers).toEqual({ 'svc-api-secret-key': '[redacted]', 'webhook-signature': '[redacted]', cookie: '[redacted]' });
  });
});
