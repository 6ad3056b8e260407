import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { makeTestApp, type TestAccount, type TestApp } from '../helpers/app.ts';
import { ALICE, BOB } from '../helpers/fixtures.ts';
import { parseJson } from '../helpers/http.ts';
import { rowCounts } from '../helpers/row-counts.ts';

/**
 * No input gives a 5xx: every route answers hostile or malformed requests with a JSON 4xx (or a
 * 2xx when the input happens to be valid), and a rejected request writes nothing.
 */

type Route = { method: 'GET' | 'POST'; path: string; name: string };

const ROUTES: Route[] = [
  { method: 'POST', path: '/accounts/contacts', name: 'create contact' },
  { method: 'GET', path: '/accounts/contacts', name: 'list contacts' },
  { method: 'GET', path: '/accounts/contacts/x', name: 'get contact' },
  { method: 'GET', path: '/accounts/messages', name: 'list messages' },
  { method: 'GET', path: '/api/status', name: 'message status' },
  { method: 'POST', path: '/api/send-message', name: 'send message' },
  { method: 'POST', path: '/api/send-group-message', name: 'send group message' },
  { method: 'POST', path: '/api/modify-group', name: 'modify group' },
];
const POST_ROUTES = ROUTES.filter((route) => route.method === 'POST');
const GET_ROUTES = ROUTES.filter((route) => route.method === 'GET');

/** Every body field a POST route reads, so generated and hand-written inputs hit real code paths. */
const BODY_FIELDS: Record<string, string[]> = {
  '/accounts/contacts': ['firstName', 'lastName', 'number', 'companyName'],
  '/api/send-message': ['number', 'content', 'media_url', 'send_style', 'status_callback', 'statusCallback', 'from_number'],
  '/api/send-group-message': [
    'numbers',
    'group_id',
    'content',
    'media_url',
    'send_style',
    'status_callback',
    'statusCallback',
    'from_number',
  ],
  '/api/modify-group': ['group_id', 'modify_type', 'number'],
};

/** Every query parameter a GET route reads. */
const QUERY_FIELDS: Record<string, string[]> = {
  '/accounts/contacts': ['order_by', 'order_direction', 'limit', 'offset'],
  '/accounts/contacts/x': [],
  '/accounts/messages': ['cid', 'number', 'group_id', 'status', 'is_outbound', 'from_date', 'limit', 'offset'],
  '/api/status': ['handle', 'history'],
};

function fieldsOf(route: Route): string[] {
  return (route.method === 'POST' ? BODY_FIELDS : QUERY_FIELDS)[route.path] ?? [];
}

/** Contact endpoints answer {status, message}; message endpoints {status, error_code, error_message, message, error_detail}. */
function validationShape(path: string): Record<string, unknown> {
  return path.startsWith('/accounts/contacts')
    ? { status: 'ERROR', message: expect.any(String) }
    : { status: 'ERROR', error_code: 4000, error_message: expect.any(String), message: expect.any(String), error_detail: null };
}

type Answer = { status: number; text: string; json: any; contentType: string | null };

function show(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return (text ?? String(value)).slice(0, 2000);
}

async function raw(
  t: TestApp,
  method: string,
  path: string,
  options: { account?: TestAccount; body?: string | Uint8Array; contentType?: string; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...(options.account?.headers ?? {}), ...(options.headers ?? {}) };
  if (options.contentType !== undefined) headers['content-type'] = options.contentType;
  const response = await t.app.request(path, { method, headers, body: options.body as BodyInit | undefined });
  const text = await response.text();
  return { status: response.status, text, json: parseJson(text), contentType: response.headers.get('content-type') };
}

/** The invariant of every answer: no 5xx but the documented 501, a JSON body, and errors carry a status field. */
function expectSane(answer: Answer, context: string) {
  const where = `${context} -> ${answer.status} ${show(answer.text)}`;
  // 501 with error_code 5010 is the contract's documented answer for a call textrelay does not build.
  if (!(answer.status === 501 && answer.json?.error_code === 5010)) expect(answer.status, where).toBeLessThan(500);
  expect(answer.json, `not JSON: ${where}`).not.toBeUndefined();
  expect(answer.contentType ?? '', where).toMatch(/application\/json/);
  if (answer.status >= 400) {
    expect(typeof answer.json?.status, `no status field: ${where}`).toBe('string');
    expect(['ERROR', 'error'], where).toContain(answer.json.status);
  }
}

/** Runs a request and checks the invariant, and that a rejection changed no row. */
async function probe(
  t: TestApp,
  method: string,
  path: string,
  options: Parameters<typeof raw>[3] & { expectStatus?: number | number[] } = {},
): Promise<Answer> {
  const before = await rowCounts(t);
  const answer = await raw(t, method, path, options);
  const context = `${method} ${path.slice(0, 200)} body=${show(typeof options.body === 'string' ? options.body : `<${options.body?.length ?? 0} bytes>`)} ct=${options.contentType}`;
  expectSane(answer, context);
  if (answer.status >= 400) expect(await rowCounts(t), `a rejection wrote rows: ${context} -> ${show(answer.text)}`).toEqual(before);
  if (options.expectStatus !== undefined) {
    const allowed = Array.isArray(options.expectStatus) ? options.expectStatus : [options.expectStatus];
    expect(allowed, `${context} -> ${answer.status} ${show(answer.text)}`).toContain(answer.status);
  }
  return answer;
}

async function setup() {
  const t = makeTestApp();
  const account = await t.createAccount();
  return { t, account };
}

/** A valid body per POST route, so single-field corruptions are tested against an otherwise good request. */
async function validBodies(t: TestApp, account: TestAccount): Promise<Record<string, Record<string, unknown>>> {
  const group = await t.call('POST', '/api/send-group-message', account, { numbers: [ALICE, BOB], content: 'setup' });
  expect(group.status, show(group.body)).toBe(202);
  return {
    '/accounts/contacts': { firstName: 'Ada', lastName: 'Lovelace', number: '+14155550177', companyName: 'Engines' },
    '/api/send-message': { number: ALICE, content: 'hi' },
    '/api/send-group-message': { numbers: [ALICE, BOB], content: 'hi group' },
    '/api/modify-group': { group_id: group.body.group_id, modify_type: 'add_recipient', number: '+14155550188' },
  };
}

const LONG = 'a'.repeat(500_000);
const HOSTILE_STRINGS = [
  '',
  ' ',
  '\u0000',
  `+1415555\u00000100`,
  'a\u0000b',
  '😀🎉👩‍👩‍👧‍👦',
  '𝔘𝔫𝔦𝔠𝔬𝔡𝔢 ﷽ ‮rtl‬',
  '\ud800',
  '\udfff\ud800',
  "'; drop table messages; --",
  '%00%ZZ%',
  '../../etc/passwd',
  '<script>alert(1)</script>',
  'Infinity',
  '-0',
  '1e309',
  '__proto__',
  LONG,
];
const WRONG_TYPES: unknown[] = [null, 0, -1, 1.5, 1e308, true, false, [], [1, 2], {}, { a: 1 }, ['+14155550100'], HOSTILE_STRINGS];

describe('robustness: hand-written hostile requests', () => {
  for (const route of POST_ROUTES) {
    describe(`${route.method} ${route.path}`, () => {
      it('malformed JSON is 400 4000 and writes nothing', async () => {
        const { t, account } = await setup();
        for (const body of ['{', '{"a":', '{bad}', "{'a':1}", '[1,]', 'nul', '{"a":1}}', '\u0000', '\ufeff{}', ' ', '']) {
          const answer = await probe(t, 'POST', route.path, { account, body, contentType: 'application/json' });
          expect(answer.status, `${show(body)} -> ${show(answer.text)}`).toBeGreaterThanOrEqual(400);
          if (body.trim() !== '' && body !== '\ufeff{}') {
            expect(answer.status, `${show(body)} -> ${show(answer.text)}`).toBe(400);
            expect(answer.json, show(answer.text)).toEqual(validationShape(route.path));
          }
        }
      });

      it('a wrong or missing content type is refused without a 5xx', async () => {
        const { t, account } = await setup();
        const good = (await validBodies(t, account))[route.path]!;
        const json = JSON.stringify(good);
        for (const contentType of [
          'text/plain',
          'application/xml',
          'application/jsonx',
          'application/json-patch+json',
          'multipart/form-data',
          'multipart/form-data; boundary=xyz',
          'application/x-www-form-urlencoded',
          'application/octet-stream',
          '*/*',
          '',
          'application/json; charset=utf-16',
        ]) {
          await probe(t, 'POST', route.path, { account, body: json, contentType });
        }
        // No content type at all, with and without a body.
        await probe(t, 'POST', route.path, { account, body: json });
        const empty = await probe(t, 'POST', route.path, { account });
        expect(empty.status, show(empty.text)).toBe(400);
        // A form body where only JSON is accepted, or a broken multipart body.
        await probe(t, 'POST', route.path, {
          account,
          body: new URLSearchParams(Object.entries(good).map(([key, value]) => [key, String(value)])).toString(),
          contentType: 'application/x-www-form-urlencoded',
        });
        await probe(t, 'POST', route.path, {
          account,
          body: '--xyz\r\nContent-Disposition: form-data; name="number"\r\n\r\n+14155550100\r\n--xy',
          contentType: 'multipart/form-data; boundary=xyz',
        });
        await probe(t, 'POST', route.path, {
          account,
          body: 'number=%ZZ&content=%&&=&number=1',
          contentType: 'application/x-www-form-urlencoded',
        });
      });

      it('a body over 1 MiB is 413 with a JSON body (streamed and with Content-Length)', async () => {
        const { t, account } = await setup();
        const big = JSON.stringify({ content: 'x'.repeat(1024 * 1024 + 10) });
        const streamed = await probe(t, 'POST', route.path, { account, body: big, contentType: 'application/json' });
        expect(streamed.status, show(streamed.text)).toBe(413);
        expect(streamed.json, show(streamed.text)).toMatchObject({ status: 'ERROR' });
        const declared = await probe(t, 'POST', route.path, {
          account,
          body: big,
          contentType: 'application/json',
          headers: { 'content-length': String(Buffer.byteLength(big)) },
        });
        expect(declared.status, show(declared.text)).toBe(413);
        const binary = await probe(t, 'POST', route.path, {
          account,
          body: new Uint8Array(2 * 1024 * 1024),
          contentType: 'application/octet-stream',
        });
        expect(binary.status, show(binary.text)).toBe(413);
        // Just under the limit is parsed (and refused or accepted on its merits, never 413).
        const under = JSON.stringify({ content: 'x'.repeat(1024 * 1024 - 100) });
        const answer = await probe(t, 'POST', route.path, { account, body: under, contentType: 'application/json' });
        expect(answer.status, show(answer.text)).not.toBe(413);
      });

      it('JSON that is not an object (arrays, null, strings, numbers, booleans) is 400', async () => {
        const { t, account } = await setup();
        for (const body of [
          '[]',
          '[{}]',
          '[{"number":"+14155550100","content":"x"}]',
          'null',
          '"text"',
          '""',
          '0',
          '-1.5e300',
          'true',
          'false',
        ]) {
          const answer = await probe(t, 'POST', route.path, { account, body, contentType: 'application/json' });
          expect(answer.status, `${body} -> ${show(answer.text)}`).toBe(400);
          expect(answer.json, `${body} -> ${show(answer.text)}`).toMatchObject({ status: 'ERROR' });
        }
      });

      it('deeply nested JSON is refused or ignored, never a 5xx', async () => {
        const { t, account } = await setup();
        const good = (await validBodies(t, account))[route.path]!;
        for (const depth of [100, 10_000, 100_000]) {
          const arrays = '['.repeat(depth) + ']'.repeat(depth);
          const objects = `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
          await probe(t, 'POST', route.path, { account, body: arrays, contentType: 'application/json', expectStatus: 400 });
          await probe(t, 'POST', route.path, { account, body: objects, contentType: 'application/json', expectStatus: 400 });
          // As an unknown field beside a valid body (stripped, so the request may well succeed).
          const extra = JSON.stringify({ ...good, extra: '__NESTED__' }).replace('"__NESTED__"', arrays);
          await probe(t, 'POST', route.path, { account, body: extra, contentType: 'application/json' });
          if (depth > 10_000) continue;
          // Nested inside every field: always the wrong type.
          for (const field of fieldsOf(route)) {
            const nested = JSON.stringify({ ...good, [field]: '__NESTED__' }).replace('"__NESTED__"', objects);
            await probe(t, 'POST', route.path, { account, body: nested, contentType: 'application/json', expectStatus: 400 });
          }
        }
      });

      it('unknown fields are ignored or refused, never a 5xx', async () => {
        const { t, account } = await setup();
        const good = (await validBodies(t, account))[route.path]!;
        for (const extra of [
          { unknown: 1 },
          { ['__proto__']: { polluted: true } },
          { constructor: { prototype: { polluted: true } } },
          { id: 1, account_id: 'acc_other', accountId: 'acc_other', status: 'READ', message_handle: 'x', plan: 'blue' },
          { ['x'.repeat(10_000)]: 'y' },
        ]) {
          const body = JSON.stringify({ ...good, ...extra });
          const rawProto = body.replace(/^\{/, '{"__proto__":{"polluted":true},');
          for (const text of [body, rawProto]) {
            const answer = await probe(t, 'POST', route.path, { account, body: text, contentType: 'application/json' });
            // Fields the client may not set are ignored, never applied.
            if (answer.status === 202) {
              expect(answer.json, show(answer.text)).toMatchObject({ status: 'QUEUED', accountEmail: account.email, plan: 'sapphire' });
              expect(answer.json.message_handle, show(answer.text)).not.toBe('x');
            }
          }
        }
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      });

      it('wrong field types are 400 (or ignored for optional fields), never a 5xx', async () => {
        const { t, account } = await setup();
        const good = (await validBodies(t, account))[route.path]!;
        for (const field of fieldsOf(route)) {
          for (const value of WRONG_TYPES) {
            await probe(t, 'POST', route.path, {
              account,
              body: JSON.stringify({ ...good, [field]: value }),
              contentType: 'application/json',
            });
          }
        }
      });

      it('very long strings, unicode, emoji and NUL characters in every field, never a 5xx', async () => {
        const { t, account } = await setup();
        const good = (await validBodies(t, account))[route.path]!;
        for (const field of fieldsOf(route)) {
          for (const value of HOSTILE_STRINGS) {
            const answer = await probe(t, 'POST', route.path, {
              account,
              body: JSON.stringify({ ...good, [field]: field === 'numbers' ? [value, BOB] : value }),
              contentType: 'application/json',
            });
            if (
              value === LONG &&
              ['number', 'numbers', 'media_url', 'status_callback', 'statusCallback', 'from_number', 'group_id'].includes(field)
            ) {
              expect(answer.status, `${field}=<500k chars> -> ${show(answer.text)}`).toBeGreaterThanOrEqual(400);
            }
          }
        }
      });

      it('NUL characters in query values are harmless', async () => {
        const { t, account } = await setup();
        const good = (await validBodies(t, account))[route.path]!;
        for (const query of ['?a=%00', '?number=%2B1415555%000100', '?%00=%00', `?x=${'%00'.repeat(1000)}`]) {
          await probe(t, 'POST', `${route.path}${query}`, { account, body: JSON.stringify(good), contentType: 'application/json' });
        }
      });
    });
  }

  for (const route of GET_ROUTES) {
    describe(`${route.method} ${route.path}`, () => {
      it('hostile query values (NUL, unicode, long, malformed escapes, repeats) never give a 5xx', async () => {
        const { t, account } = await setup();
        const sent = await t.call('POST', '/api/send-message', account, { number: ALICE, content: 'x' });
        expect(sent.status).toBe(202);
        const keys = [...fieldsOf(route), 'unknown', '__proto__', ''];
        for (const key of keys) {
          for (const value of [...HOSTILE_STRINGS.filter((value) => !/[\ud800-\udfff]/.test(value)), 'x'.repeat(20_000)]) {
            await probe(t, 'GET', `${route.path}?${encodeURIComponent(key)}=${encodeURIComponent(value)}`, { account });
          }
          for (const rawValue of ['%00', '%ZZ', '%', '%E0%A4%A', '%C0%80', '%ED%A0%80', '+', '%2B', '&&', '=', '==', '[]', '%5B%5D']) {
            await probe(t, 'GET', `${route.path}?${encodeURIComponent(key)}=${rawValue}`, { account });
          }
          await probe(t, 'GET', `${route.path}?${encodeURIComponent(key)}=1&${encodeURIComponent(key)}=2`, { account });
          await probe(t, 'GET', `${route.path}?${encodeURIComponent(key)}[]=1`, { account });
          await probe(t, 'GET', `${route.path}?${encodeURIComponent(key)}`, { account });
        }
      });

      it('a body sent along with a GET (as POST-tunnelled noise) does not matter', async () => {
        const { t, account } = await setup();
        // Request forbids a GET body; a method the path does not serve, with a body, must still be a JSON 404.
        for (const method of ['POST', 'PUT', 'PATCH', 'DELETE'].filter(
          (method) => !ROUTES.some((r) => r.path === route.path && r.method === method),
        )) {
          await probe(t, method, route.path, { account, body: '{bad', contentType: 'application/json', expectStatus: [404, 405] });
        }
      });
    });
  }

  it('hostile contact ids in the path never give a 5xx', async () => {
    const { t, account } = await setup();
    for (const id of [
      '%00',
      'a%00b',
      '%ZZ',
      '%E0%A4%A',
      encodeURIComponent('😀'),
      'x'.repeat(10_000),
      '..',
      '%2F',
      encodeURIComponent("' or 1=1 --"),
    ]) {
      const answer = await probe(t, 'GET', `/accounts/contacts/${id}`, { account });
      // A NUL character is refused as input on every route (PostgreSQL cannot hold one); anything else is simply not found.
      expect(answer.status, `${id.slice(0, 50)} -> ${show(answer.text)}`).toBe(id.includes('%00') ? 400 : 404);
    }
  });

  it('without credentials every route is 401 4010 before any validation', async () => {
    const { t } = await setup();
    for (const route of ROUTES) {
      const answer = await probe(t, route.method, `${route.path}?limit=x`, {
        body: route.method === 'POST' ? '{bad' : undefined,
        contentType: route.method === 'POST' ? 'application/json' : undefined,
      });
      expect(answer.status, `${route.path} -> ${show(answer.text)}`).toBe(401);
      expect(answer.json, show(answer.text)).toMatchObject({ status: 'ERROR', error_code: 4010 });
    }
  });
});

describe('robustness: service routes', () => {
  it('unknown routes and methods are 404 JSON', async () => {
    const { t, account } = await setup();
    for (const [method, path] of [
      ['GET', '/'],
      ['GET', '/nope'],
      ['GET', '/api/nope'],
      ['POST', '/api/nope'],
      ['GET', '/accounts/messages/extra'],
      ['DELETE', '/accounts/messages'],
      ['PUT', '/api/send-message'],
      ['GET', '/api/send-message'],
      ['GET', '/accounts/contacts/x/y'],
      ['GET', '/%00'],
      ['GET', `/${'x'.repeat(10_000)}`],
    ] as const) {
      for (const who of [account, undefined]) {
        const answer = await probe(t, method, path, { account: who });
        expect(answer.status, `${method} ${path.slice(0, 50)} -> ${show(answer.text)}`).toBe(404);
        expect(answer.json, show(answer.text)).toMatchObject({ status: 'ERROR' });
      }
    }
  });

  it('/healthz and /readyz answer 200', async () => {
    const { t } = await setup();
    for (const path of ['/healthz', '/readyz']) {
      const answer = await raw(t, 'GET', path);
      expect(answer.status, show(answer.text)).toBe(200);
      expect(answer.json, show(answer.text)).toMatchObject({ status: 'OK' });
    }
  });

  it('/openapi.json answers 200 and documents every registered path', async () => {
    const { t } = await setup();
    const answer = await raw(t, 'GET', '/openapi.json');
    expect(answer.status, show(answer.text)).toBe(200);
    const paths = Object.keys(answer.json?.paths ?? {});
    for (const path of [
      '/accounts/contacts',
      '/accounts/contacts/{contact_id}',
      '/accounts/messages',
      '/api/status',
      '/api/send-message',
      '/api/send-group-message',
      '/api/modify-group',
    ]) {
      expect(paths, `${path} missing from ${show(paths)}`).toContain(path);
    }
    expect(answer.json.paths['/accounts/contacts']).toHaveProperty('get');
    expect(answer.json.paths['/accounts/contacts']).toHaveProperty('post');
  });
});

describe('robustness: properties', () => {
  const PHONES = [ALICE, BOB, '+14155550102', '+14155550103', '+1 (415) 555-0104', '911', '+1', 'abc', ''];

  /** Values that are often valid for some field, so generated requests also reach the success paths. */
  const plausible = fc.oneof(
    fc.constantFrom(...PHONES),
    fc.constantFrom('hi', '', 'https://cdn.example.com/a.jpg', 'https://x.example.com/a.jpg?X-Amz-Signature=1', 'confetti', 'slam'),
    fc.constantFrom('add_recipient', 'remove_recipient', 'rename', 'leave', 'QUEUED', 'true', '1', 'asc', 'desc', 'last_date'),
    fc.array(fc.constantFrom(...PHONES), { maxLength: 30 }),
    fc.string({ unit: 'binary', maxLength: 40 }),
    fc.integer(),
  );

  const DELETE = Symbol('delete');

  /**
   * Arbitrary JSON, arbitrary records of the route's fields, and (most often) a valid body with a
   * few fields replaced or removed, so that both the success and the rejection paths are exercised.
   */
  function bodyFor(route: Route, base: Record<string, unknown>) {
    const fields = fieldsOf(route);
    if (fields.length === 0) return fc.jsonValue({ stringUnit: 'binary' });
    const record = fc.dictionary(
      fc.oneof(fc.constantFrom(...fields), fc.string({ maxLength: 8 })),
      fc.oneof(plausible, fc.jsonValue({ maxDepth: 2 })),
      {
        maxKeys: fields.length + 2,
      },
    );
    const mutated = fc
      .dictionary(fc.constantFrom(...fields), fc.oneof(plausible, fc.jsonValue({ maxDepth: 2 }), fc.constant<typeof DELETE>(DELETE)), {
        maxKeys: 3,
      })
      .map((changes) => {
        const body: Record<string, unknown> = { ...base };
        for (const [key, value] of Object.entries(changes)) {
          if (value === DELETE) delete body[key];
          else body[key] = value;
        }
        return body;
      });
    return fc.oneof(
      { weight: 2, arbitrary: fc.jsonValue({ stringUnit: 'binary' }) },
      { weight: 2, arbitrary: record },
      { weight: 4, arbitrary: mutated },
    );
  }

  function queryFor(route: Route, known: string[]) {
    const keys = [...(QUERY_FIELDS[route.path] ?? []), 'handle', 'limit', 'offset', 'number'];
    const value = fc.oneof(queryValue, fc.constantFrom(...known).map(encodeURIComponent));
    return fc
      .array(
        fc.tuple(fc.oneof(fc.constantFrom(...keys), fc.string({ unit: 'grapheme-ascii', maxLength: 6 }).map(encodeURIComponent)), value),
        {
          maxLength: 6,
        },
      )
      .map((pairs) => (pairs.length === 0 ? '' : `?${pairs.map(([key, value]) => `${key}=${value}`).join('&')}`));
  }

  const queryValue = fc.oneof(
    fc.string({ unit: 'grapheme', maxLength: 30 }).map((value) => encodeURIComponent(value)),
    fc
      .constantFrom(...PHONES, 'QUEUED', 'true', 'false', '1', '0', '-1', '1000000', '2026-11-23 09:30:00', '2026-13-01 00:00:00')
      .map(encodeURIComponent),
    fc.constantFrom('%00', '%ZZ', '%', '%E0%A4%A', '%C0%80', '+', '', '[]', '%2B14155550100'),
    fc.string({ unit: 'binary-ascii', maxLength: 20 }).map((value) => value.replace(/[#\s]/g, '')),
  );

  const contentTypes = fc.constantFrom(
    'application/json',
    'application/json',
    'application/json',
    'application/json; charset=utf-8',
    'application/x-www-form-urlencoded',
    'text/plain',
    undefined,
  );

  /** A generated value as a form field: a string as is, anything else as JSON (an object may refuse String()). */
  function formValue(value: unknown): string {
    return typeof value === 'string' ? value : String(JSON.stringify(value));
  }

  function formEncode(payload: Record<string, unknown>): string {
    return new URLSearchParams(
      Object.entries(payload).flatMap(([key, value]) =>
        Array.isArray(value) ? value.map((item) => [key, formValue(item)]) : [[key, formValue(value)]],
      ),
    ).toString();
  }

  for (const route of ROUTES) {
    it(`${route.method} ${route.path}: arbitrary bodies and queries never give a 5xx, and rejections write nothing`, async () => {
      const { t, account } = await setup();
      const bases = await validBodies(t, account);
      const sent = await t.call('POST', '/api/send-message', account, { number: ALICE, content: 'known' });
      expect(sent.status, show(sent.body)).toBe(202);
      const contacts = await t.call('GET', '/accounts/contacts', account);
      const known = [sent.body.message_handle, (contacts.body as any[])[0].cid, bases['/api/modify-group']!.group_id as string];
      const outcomes = { accepted: 0, rejected: 0 };
      await fc.assert(
        fc.asyncProperty(
          bodyFor(route, bases[route.path] ?? {}),
          queryFor(route, known),
          contentTypes,
          fc.option(fc.stringMatching(/^[A-Za-z0-9_-]{0,300}$/), { nil: undefined }),
          async (payload, query, contentType, idempotencyKey) => {
            const options: Parameters<typeof probe>[3] = { account };
            if (route.method === 'POST') {
              const isRecord = payload !== null && typeof payload === 'object' && !Array.isArray(payload);
              options.body =
                contentType === 'application/x-www-form-urlencoded' && isRecord
                  ? formEncode(payload as Record<string, unknown>)
                  : JSON.stringify(payload);
              options.contentType = contentType;
              if (idempotencyKey !== undefined) options.headers = { 'idempotency-key': idempotencyKey };
            }
            const answer = await probe(t, route.method, `${route.path}${query}`, options);
            if (answer.status < 300) outcomes.accepted += 1;
            else outcomes.rejected += 1;
          },
        ),
        { numRuns: Number(process.env.FUZZ_RUNS ?? 300) },
      );
      // The generators must reach both paths, or the property proves little.
      expect(outcomes.rejected, show(outcomes)).toBeGreaterThan(0);
      if (route.path !== '/accounts/contacts/x') expect(outcomes.accepted, show(outcomes)).toBeGreaterThan(0);
    });
  }

  it('GET /accounts/contacts/{id}: arbitrary ids never give a 5xx', async () => {
    const { t, account } = await setup();
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 60 }), async (id) => {
        const answer = await probe(t, 'GET', `/accounts/contacts/${encodeURIComponent(id)}`, { account });
        expect([200, 404], show(answer.text)).toContain(answer.status);
      }),
      { numRuns: 200 },
    );
  });
});
