/**
 * What bounds one account's writes: every API route that writes counts against the account's
 * write limit (a bulk call per row), and each webhook type lists at most a set number of URLs.
 * The routes are read from the app's own route table, so a new write route is covered the day it is added.
 */
import { describe, expect, it } from 'vitest';
import { makeTestApp, type TestAccount } from '../helpers/app.ts';
import { expectDocumentedError } from '../helpers/documented-errors.ts';
import { show } from '../helpers/fixtures.ts';
import { jsonRequest } from '../helpers/http.ts';
import { fillPath, openApiDocument, operationOf, routeKey, routeTable } from '../helpers/route-table.ts';

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** Sends have a limit of their own; bulk calls count their rows, after validation (below). */
const COUNTED_ELSEWHERE = new Set(['sendMessage', 'sendGroupMessage', 'contactsBulkCreate', 'contactsBulkDelete']);

const numbers = (count: number, from = 0) => Array.from({ length: count }, (_, i) => `+1415555${String(1000 + from + i).padStart(4, '0')}`);

async function countOf(t: ReturnType<typeof makeTestApp>, account: TestAccount): Promise<number> {
  const reply = await t.call('GET', '/api/v2/contacts/count', account);
  expect(reply.status, show(reply.body)).toBe(200);
  return reply.body.count;
}

describe('the write limit', () => {
  it('answers every write route past the limit with 429, Retry-After and the route’s documented error, and leaves reads alone', async () => {
    const t = makeTestApp({ writeRateLimitPerMinute: 1 });
    const doc = await openApiDocument(t.app);
    const writes = routeTable(t.app).flatMap((route) => {
      const operation = operationOf(doc, route) as (ReturnType<typeof operationOf> & { operationId?: string }) | undefined;
      const usesApiKeys = operation?.security?.some((scheme) => 'apiKeyId' in scheme) ?? false;
      if (!operation || !usesApiKeys || !WRITE_METHODS.has(route.method)) return [];
      if (operation.tags?.includes('Not supported') || COUNTED_ELSEWHERE.has(operation.operationId ?? '')) return [];
      return [{ route, operation }];
    });
    // Contacts v1 and v2, webhook lists, groups, typing, media, modify-group: the surface the issue names.
    expect(writes.length).toBeGreaterThanOrEqual(15);
    for (const { route, operation } of writes) {
      const where = routeKey(route);
      expect(operation.responses['429'], `${where} documents its 429`).toBeDefined();
      const account = await t.createAccount();
      const path = fillPath(route.path, () => '%2B14155550123');
      // The first write of the minute is let through (answered whatever its body deserves), the second is not.
      await t.app.request(path, jsonRequest(route.method, account.headers, {}));
      const refused = await t.app.request(path, jsonRequest(route.method, account.headers, {}));
      expect(refused.status, where).toBe(429);
      expect(Number(refused.headers.get('retry-after')), where).toBeGreaterThanOrEqual(1);
      expectDocumentedError(operation, 429, refused.headers.get('content-type'), await refused.text(), where);
      expect((await t.call('GET', '/api/v2/contacts', account)).status, `reads after ${where}`).toBe(200);
    }
  });

  it('keeps the contact routes’ {status, message} body for a 429', async () => {
    const t = makeTestApp({ writeRateLimitPerMinute: 1 });
    const account = await t.createAccount();
    expect((await t.call('POST', '/accounts/contacts', account, { firstName: 'A', lastName: 'B', number: '+14155550123' })).status).toBe(
      200,
    );
    const refused = await t.call('POST', '/accounts/contacts', account, { firstName: 'C', lastName: 'D', number: '+14155550124' });
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ status: 'ERROR', message: expect.stringContaining('TEXTRELAY_WRITE_RATE_LIMIT_PER_MINUTE') });
    expect(await countOf(t, account)).toBe(1);
  });

  it('counts a bulk create and a bulk delete per row, refusing one that would pass the limit whole', async () => {
    const t = makeTestApp({ writeRateLimitPerMinute: 10 });
    const account = await t.createAccount();
    const first = await t.call('POST', '/api/v2/contacts/bulk', account, { contacts: numbers(8).map((phone) => ({ phone })) });
    expect(first.status, show(first.body)).toBe(200);
    const refused = await t.call('POST', '/api/v2/contacts/bulk', account, { contacts: numbers(3, 8).map((phone) => ({ phone })) });
    expect(refused.status, show(refused.body)).toBe(429);
    expect(refused.body.error_code).toBe(4001);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await countOf(t, account)).toBe(8);
    // Two rows left in the bucket: a bulk delete of three is refused too, and deletes nothing.
    const deleteMany = await t.call('DELETE', '/api/v2/contacts', account, { contact_ids: numbers(3) });
    expect(deleteMany.status, show(deleteMany.body)).toBe(429);
    expect(await countOf(t, account)).toBe(8);
    // Another account has a bucket of its own.
    const other = await t.createAccount();
    expect((await t.call('POST', '/api/v2/contacts/bulk', other, { contacts: numbers(10).map((phone) => ({ phone })) })).status).toBe(200);
  });

  it('refills with time: the writes of the next minute go through', async () => {
    const t = makeTestApp({ writeRateLimitPerMinute: 2 });
    const account = await t.createAccount();
    for (const number of numbers(2)) expect((await t.call('POST', '/api/v2/contacts', account, { number })).status).toBe(200);
    expect((await t.call('POST', '/api/v2/contacts', account, { number: numbers(1, 2)[0] })).status).toBe(429);
    t.clock.advance(60_000);
    expect((await t.call('POST', '/api/v2/contacts', account, { number: numbers(1, 2)[0] })).status).toBe(200);
  });
});

describe('the webhook URL cap', () => {
  const urls = (count: number) => Array.from({ length: count }, (_, i) => `https://h${i}.example.com/hook`);

  it('refuses a list that would pass TEXTRELAY_WEBHOOK_URLS_PER_TYPE, naming it, on every way in', async () => {
    const t = makeTestApp({ webhookUrlsPerType: 3 });
    const account = await t.createAccount();
    const added = await t.call('POST', '/api/account/webhooks', account, { webhooks: urls(3), type: 'contact_created' });
    expect(added.status, show(added.body)).toBe(200);
    const attempts = [
      ['POST', '/api/account/webhooks', { webhooks: ['https://more.example.com/'], type: 'contact_created' }],
      ['PUT', '/api/account/webhooks', { webhooks: { outbound: urls(4) } }],
      ['POST', '/accounts/webhooks', { webhooks: urls(4), type: 'receive' }],
    ] as const;
    for (const [method, path, body] of attempts) {
      const refused = await t.call(method, path, account, body);
      expect(refused.status, `${method} ${path}`).toBe(400);
      expect(refused.body.error_message).toContain('at most 3');
      expect(refused.body.error_message).toContain('TEXTRELAY_WEBHOOK_URLS_PER_TYPE');
    }
    const listed = await t.call('GET', '/api/account/webhooks', account);
    expect(listed.body.webhooks).toEqual({ contact_created: urls(3) });
  });
});
