import { describe, expect, it } from 'vitest';
import { makeTestApp, type TestAccount, type TestApp } from '../helpers/app.ts';
import { expectAccepted, expectMessageError, expectRejectedWithoutWrite as expectRejected, listMessages } from '../helpers/expect.ts';
import { ALICE, BOB, CAROL, DAVE, MESSAGE_FIELDS, SEND_STYLES, UUID_LOWER } from '../helpers/fixtures.ts';
import { type Reply, readReply } from '../helpers/http.ts';

const E164 = /^\+[1-9]\d{6,14}$/;

/** Send-message errors must also carry a non-empty error_message. */
const NON_EMPTY = { nonEmpty: true };

function expectError(reply: Reply, httpStatus: number, errorCode: number): void {
  expectMessageError(reply, httpStatus, errorCode, NON_EMPTY);
}

/** A rejected send must leave nothing behind. */
function expectRejectedWithoutWrite(t: TestApp, account: TestAccount, reply: Reply, errorCode = 4000, httpStatus = 400) {
  return expectRejected(t, account, reply, errorCode, httpStatus, NON_EMPTY);
}

/** A raw request: the body is sent as given, with only the headers named (plus credentials). */
async function rawRequest(
  t: TestApp,
  path: string,
  account: TestAccount | undefined,
  init: { method?: string; body?: BodyInit; headers?: Record<string, string> } = {},
): Promise<Reply> {
  const response = await t.app.request(path, {
    method: init.method ?? 'POST',
    headers: { ...(account?.headers ?? {}), ...(init.headers ?? {}) },
    body: init.body,
  });
  return readReply(response);
}

function sendForm(t: TestApp, account: TestAccount, fields: Record<string, string>, headers: Record<string, string> = {}) {
  return rawRequest(t, '/api/send-message', account, { body: new URLSearchParams(fields), headers });
}

function sendJson(t: TestApp, account: TestAccount, body: unknown, headers: Record<string, string> = {}) {
  return t.call('POST', '/api/send-message', account, body, headers);
}

describe('POST /api/send-message: happy path', () => {
  it('answers 202 with the full Message object (JSON body)', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const sent = await sendJson(t, account, { number: ALICE, content: 'hello there' });
    const dump = JSON.stringify(sent.body);
    expect(sent.status, dump).toBe(202);
    for (const field of MESSAGE_FIELDS) expect(sent.body, `${field} missing: ${dump}`).toHaveProperty(field);

    const body = sent.body;
    const clockIso = new Date(t.clock.now()).toISOString();
    expect(body.status, dump).toBe('QUEUED');
    expect(body.message_handle, dump).toMatch(UUID_LOWER);
    expect(body.message_type, dump).toBe('message');
    expect(body.group_id, dump).toBe('');
    expect(body.is_outbound, dump).toBe(true);
    expect(account.numbers, dump).toContain(body.from_number);
    expect(body.from_number, dump).toMatch(E164);
    expect(body.number, dump).toBe(ALICE);
    expect(body.to_number, dump).toBe(ALICE);
    expect(body.plan, dump).toBe('sapphire');
    expect(body.accountEmail, dump).toBe(account.email);
    expect(body.content, dump).toBe('hello there');
    expect(body.error_code, dump).toBeNull();
    expect(body.date_sent, dump).toBe(clockIso);
    expect(body.date_updated, dump).toBe(clockIso);
    expect(Array.isArray(body.participants), dump).toBe(true);
    expect(body.participants, dump).toEqual(expect.arrayContaining([ALICE, body.from_number]));
    expect(typeof body.opted_out, dump).toBe('boolean');
    expect(typeof body.media_url, dump).toBe('string');
    expect(typeof body.send_style, dump).toBe('string');
  });

  it('GET /api/status?handle= returns the same message', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const sent = await sendJson(t, account, { number: ALICE, content: 'status me' });
    expectAccepted(sent);
    const found = await t.call('GET', `/api/status?handle=${sent.body.message_handle}`, account);
    expect(found.status, JSON.stringify(found.body)).toBe(200);
    expect(found.body, JSON.stringify(found.body)).toEqual(sent.body);
  });

  it('accepts application/x-www-form-urlencoded bodies', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const sent = await sendForm(t, account, { number: ALICE, content: 'from a form', send_style: 'slam' });
    const dump = JSON.stringify(sent.body);
    expectAccepted(sent);
    expect(sent.body.number, dump).toBe(ALICE);
    expect(sent.body.content, dump).toBe('from a form');
    expect(sent.body.send_style, dump).toBe('slam');
    expect(sent.body.message_handle, dump).toMatch(UUID_LOWER);
    const messages = await listMessages(t, account);
    expect(
      messages.map((m) => m.message_handle),
      dump,
    ).toEqual([sent.body.message_handle]);
  });

  it('normalises a formatted number to E.164', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const sent = await sendJson(t, account, { number: '+1 (415) 555-0100', content: 'hi' });
    expectAccepted(sent);
    expect(sent.body.number, JSON.stringify(sent.body)).toBe(ALICE);
    expect(sent.body.to_number, JSON.stringify(sent.body)).toBe(ALICE);
  });

  it('accepts media_url without content', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const sent = await sendJson(t, account, { number: ALICE, media_url: 'https://cdn.example.com/pics/cat.jpg' });
    expectAccepted(sent);
    expect(sent.body.media_url, JSON.stringify(sent.body)).toBe('https://cdn.example.com/pics/cat.jpg');
    expect(sent.body.content, JSON.stringify(sent.body)).toBe('');
  });

  it('accepts media_url without content in a form body', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const sent = await sendForm(t, account, { number: ALICE, media_url: 'http://cdn.example.com/a.png' });
    expectAccepted(sent);
    expect(sent.body.media_url, JSON.stringify(sent.body)).toBe('http://cdn.example.com/a.png');
  });

  it('accepts content of 18995 characters', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const content = 'x'.repeat(18995);
    const sent = await sendJson(t, account, { number: ALICE, content });
    expectAccepted(sent);
    expect(sent.body.content.length, `length ${sent.body.content?.length}`).toBe(18995);
  });

  it.each(SEND_STYLES)('accepts send_style %s', async (style) => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const sent = await sendJson(t, account, { number: ALICE, content: 'styled', send_style: style });
    expectAccepted(sent);
    expect(sent.body.send_style, JSON.stringify(sent.body)).toBe(style);
  });

  it('ignores unknown extra fields', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const sent = await sendJson(t, account, { number: ALICE, content: 'hi', surprise: true, nested: { a: 1 } });
    expectAccepted(sent);
    expect(sent.body, JSON.stringify(sent.body)).not.toHaveProperty('surprise');
  });

  it('accepts status_callback and keeps it as the callback', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const sent = await sendJson(t, account, { number: ALICE, content: 'hi', status_callback: 'https://hooks.example.com/status' });
    expectAccepted(sent);
    const [record] = await listMessages(t, account);
    expect(record?.callback_url, JSON.stringify(record)).toBe('https://hooks.example.com/status');
  });

  it('accepts statusCallback (camelCase) as the callback', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const sent = await sendJson(t, account, { number: ALICE, content: 'hi', statusCallback: 'https://hooks.example.com/cb' });
    expectAccepted(sent);
    const [record] = await listMessages(t, account);
    expect(record?.callback_url, JSON.stringify(record)).toBe('https://hooks.example.com/cb');
    expect(record?.callbackURL, JSON.stringify(record)).toBe('https://hooks.example.com/cb');
  });

  it('accepts statusCallback (camelCase) in a form body', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const sent = await sendForm(t, account, { number: ALICE, content: 'hi', statusCallback: 'http://hooks.example.com/form' });
    expectAccepted(sent);
    const [record] = await listMessages(t, account);
    expect(record?.callback_url, JSON.stringify(record)).toBe('http://hooks.example.com/form');
  });
});

describe('POST /api/send-message: validation', () => {
  const invalidJsonBodies: Array<[string, Record<string, unknown>]> = [
    ['an invalid number', { number: '+1415555', content: 'hi' }],
    ['a number without +', { number: 'not-a-number', content: 'hi' }],
    ['a missing number', { content: 'hi' }],
    ['content of 18996 characters', { number: ALICE, content: 'x'.repeat(18996) }],
    ['a send_style not in the list', { number: ALICE, content: 'hi', send_style: 'explode' }],
    ['a send_style in the wrong case', { number: ALICE, content: 'hi', send_style: 'SLAM' }],
    ['a media_url that is not http(s)', { number: ALICE, media_url: 'ftp://cdn.example.com/cat.jpg' }],
    ['a media_url that is not a URL', { number: ALICE, media_url: 'cat.jpg' }],
    ['a media_url without a file extension', { number: ALICE, media_url: 'https://cdn.example.com/pics/cat' }],
    [
      'a media_url signed with X-Amz-Signature',
      { number: ALICE, media_url: 'https://bucket.s3.amazonaws.com/cat.jpg?X-Amz-Signature=abc123&X-Amz-Expires=300' },
    ],
    [
      'a media_url signed with Signature and Expires',
      { number: ALICE, media_url: 'https://cdn.example.com/cat.jpg?Signature=abc&Expires=1700000000' },
    ],
    ['a media_url carrying a token', { number: ALICE, media_url: 'https://cdn.example.com/cat.jpg?token=secret' }],
    ['a relative status_callback', { number: ALICE, content: 'hi', status_callback: '/callbacks/status' }],
    ['an ftp status_callback', { number: ALICE, content: 'hi', status_callback: 'ftp://hooks.example.com/status' }],
    ['a relative statusCallback', { number: ALICE, content: 'hi', statusCallback: 'callbacks/status' }],
    ['neither content nor media_url', { number: ALICE }],
    ['empty content and no media_url', { number: ALICE, content: '' }],
    ['a from_number that is not a phone number', { number: ALICE, content: 'hi', from_number: 'line-1' }],
    ['a number of the wrong type', { number: 123, content: 'hi' }],
    ['content of the wrong type', { number: ALICE, content: {} }],
    ['media_url of the wrong type', { number: ALICE, media_url: 42 }],
  ];

  it.each(invalidJsonBodies)('refuses %s with 400/4000 and writes nothing', async (_label, body) => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const reply = await sendJson(t, account, body);
    await expectRejectedWithoutWrite(t, account, reply);
  });

  it("refuses a from_number that is not one of the account's numbers", async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const other = await t.createAccount();
    const reply = await sendJson(t, account, { number: ALICE, content: 'hi', from_number: other.numbers[0] });
    await expectRejectedWithoutWrite(t, account, reply);
    const valid = await sendJson(t, account, { number: ALICE, content: 'hi', from_number: '+14155550109' });
    await expectRejectedWithoutWrite(t, account, valid);
  });

  const invalidFormBodies: Array<[string, Record<string, string>]> = [
    ['an invalid number', { number: '12', content: 'hi' }],
    ['a missing number', { content: 'hi' }],
    ['content of 18996 characters', { number: ALICE, content: 'y'.repeat(18996) }],
    ['a bad send_style', { number: ALICE, content: 'hi', send_style: 'wobble' }],
    ['neither content nor media_url', { number: ALICE }],
    ['a signed media_url', { number: ALICE, media_url: 'https://cdn.example.com/cat.jpg?X-Amz-Signature=abc' }],
  ];

  it.each(invalidFormBodies)('refuses a form with %s with 400/4000 and writes nothing', async (_label, fields) => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const reply = await sendForm(t, account, fields);
    await expectRejectedWithoutWrite(t, account, reply);
  });

  it('refuses malformed JSON', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const reply = await rawRequest(t, '/api/send-message', account, {
      body: '{"number": "+14155550100", "content": ',
      headers: { 'content-type': 'application/json' },
    });
    await expectRejectedWithoutWrite(t, account, reply);
  });

  it('refuses an empty JSON body', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const reply = await rawRequest(t, '/api/send-message', account, { body: '', headers: { 'content-type': 'application/json' } });
    await expectRejectedWithoutWrite(t, account, reply);
  });

  it('refuses a JSON body that is not an object', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const reply = await sendJson(t, account, [ALICE, 'hi']);
    await expectRejectedWithoutWrite(t, account, reply);
  });

  it('refuses a text/plain body', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const reply = await rawRequest(t, '/api/send-message', account, {
      body: JSON.stringify({ number: ALICE, content: 'hi' }),
      headers: { 'content-type': 'text/plain' },
    });
    await expectRejectedWithoutWrite(t, account, reply);
  });

  it('refuses an empty body without a content type', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const reply = await rawRequest(t, '/api/send-message', account, {});
    await expectRejectedWithoutWrite(t, account, reply);
  });
});

describe('POST /api/send-message: blacklisted recipients', () => {
  it.each(['911', '112', '999', '+911', '12345'])('refuses %s with 400/4002 and writes nothing', async (number) => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const reply = await sendJson(t, account, { number, content: 'help' });
    await expectRejectedWithoutWrite(t, account, reply, 4002);
  });

  it('refuses a blacklisted number in a form body with 4002', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const reply = await sendForm(t, account, { number: '911', content: 'help' });
    await expectRejectedWithoutWrite(t, account, reply, 4002);
  });
});

describe('POST /api/send-message: sticky from_number', () => {
  it('spreads first contacts over the least-loaded lines, then keeps each person on their line', async () => {
    const t = makeTestApp();
    const account = await t.createAccount({ numbers: 3 });
    expect(account.numbers).toHaveLength(3);

    const first = new Map<string, string>();
    for (const person of [ALICE, BOB, CAROL]) {
      const sent = await sendJson(t, account, { number: person, content: `hi ${person}` });
      expectAccepted(sent);
      first.set(person, sent.body.from_number);
    }
    const lines = [...first.values()];
    expect(new Set(lines).size, JSON.stringify(lines)).toBe(3);
    expect([...lines].sort(), JSON.stringify(lines)).toEqual([...account.numbers].sort());

    for (let round = 0; round < 3; round++) {
      for (const person of [CAROL, ALICE, BOB]) {
        const sent = await sendJson(t, account, { number: person, content: `again ${round}` });
        expectAccepted(sent);
        expect(sent.body.from_number, JSON.stringify(sent.body)).toBe(first.get(person));
      }
    }
  });

  it('uses an explicit from_number (one of the account numbers) for that message', async () => {
    const t = makeTestApp();
    const account = await t.createAccount({ numbers: 3 });
    const pinned = await sendJson(t, account, { number: ALICE, content: 'first' });
    expectAccepted(pinned);
    const other = account.numbers.find((line) => line !== pinned.body.from_number)!;

    const explicit = await sendJson(t, account, { number: ALICE, content: 'explicit', from_number: other });
    expectAccepted(explicit);
    expect(explicit.body.from_number, JSON.stringify(explicit.body)).toBe(other);

    // The person stays pinned to their line: the next send without from_number uses it again.
    const after = await sendJson(t, account, { number: ALICE, content: 'back to normal' });
    expectAccepted(after);
    expect(after.body.from_number, JSON.stringify(after.body)).toBe(pinned.body.from_number);

    // A first contact with an explicit line goes out on that line too.
    const lastLine = account.numbers[2]!;
    const fresh = await sendJson(t, account, { number: DAVE, content: 'hello', from_number: lastLine });
    expectAccepted(fresh);
    expect(fresh.body.from_number, JSON.stringify(fresh.body)).toBe(lastLine);
  });

  it('accepts an explicit from_number in a form body', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const line = account.numbers[1]!;
    const sent = await sendForm(t, account, { number: ALICE, content: 'hi', from_number: line });
    expectAccepted(sent);
    expect(sent.body.from_number, JSON.stringify(sent.body)).toBe(line);
  });
});

describe('POST /api/send-message: Idempotency-Key', () => {
  it('replays the first response for the same key and body, storing one message', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const body = { number: ALICE, content: 'once only' };
    const first = await sendJson(t, account, body, { 'Idempotency-Key': 'key-1' });
    expectAccepted(first);
    t.clock.advance(1000);
    const second = await sendJson(t, account, body, { 'Idempotency-Key': 'key-1' });
    expect(second.status, JSON.stringify(second.body)).toBe(first.status);
    expect(second.body, JSON.stringify(second.body)).toEqual(first.body);
    const messages = await listMessages(t, account);
    expect(
      messages.map((m) => m.message_handle),
      JSON.stringify(messages),
    ).toEqual([first.body.message_handle]);
  });

  it('replays for a form body as well', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const fields = { number: ALICE, content: 'form once' };
    const first = await sendForm(t, account, fields, { 'Idempotency-Key': 'form-key' });
    expectAccepted(first);
    const second = await sendForm(t, account, fields, { 'Idempotency-Key': 'form-key' });
    expect(second.status, JSON.stringify(second.body)).toBe(202);
    expect(second.body, JSON.stringify(second.body)).toEqual(first.body);
    expect(await listMessages(t, account)).toHaveLength(1);
  });

  it('answers 409/4090 for the same key with a different body', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const first = await sendJson(t, account, { number: ALICE, content: 'one' }, { 'Idempotency-Key': 'key-2' });
    expectAccepted(first);
    const second = await sendJson(t, account, { number: ALICE, content: 'two' }, { 'Idempotency-Key': 'key-2' });
    expectError(second, 409, 4090);
    const messages = await listMessages(t, account);
    expect(
      messages.map((m) => m.message_handle),
      JSON.stringify(messages),
    ).toEqual([first.body.message_handle]);
  });

  it('sends a new message for the same key after 24 hours', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const body = { number: ALICE, content: 'daily' };
    const first = await sendJson(t, account, body, { 'Idempotency-Key': 'key-3' });
    expectAccepted(first);
    t.clock.advance(24 * 3600 * 1000 + 1);
    const second = await sendJson(t, account, body, { 'Idempotency-Key': 'key-3' });
    expectAccepted(second);
    expect(second.body.message_handle, JSON.stringify(second.body)).not.toBe(first.body.message_handle);
    expect(second.body.date_sent, JSON.stringify(second.body)).toBe(new Date(t.clock.now()).toISOString());
    expect(await listMessages(t, account)).toHaveLength(2);
    // ...and the renewed key now replays the new message.
    const third = await sendJson(t, account, body, { 'Idempotency-Key': 'key-3' });
    expect(third.body, JSON.stringify(third.body)).toEqual(second.body);
  });

  it('keeps keys per account', async () => {
    const t = makeTestApp();
    const one = await t.createAccount();
    const two = await t.createAccount();
    const body = { number: ALICE, content: 'shared key' };
    const first = await sendJson(t, one, body, { 'Idempotency-Key': 'same-key' });
    const second = await sendJson(t, two, body, { 'Idempotency-Key': 'same-key' });
    expectAccepted(first);
    expectAccepted(second);
    expect(second.body.message_handle, JSON.stringify(second.body)).not.toBe(first.body.message_handle);
    expect(second.body.accountEmail, JSON.stringify(second.body)).toBe(two.email);
    expect(two.numbers, JSON.stringify(second.body)).toContain(second.body.from_number);
    expect(await listMessages(t, one)).toHaveLength(1);
    expect(await listMessages(t, two)).toHaveLength(1);
  });

  it('answers 409/4090 when a send-message key is reused for a group send', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const first = await sendJson(t, account, { number: ALICE, content: 'hi' }, { 'Idempotency-Key': 'cross' });
    expectAccepted(first);
    const group = await t.call(
      'POST',
      '/api/send-group-message',
      account,
      { numbers: [ALICE, BOB], content: 'hi' },
      { 'Idempotency-Key': 'cross' },
    );
    expectError(group, 409, 4090);
    expect(await listMessages(t, account)).toHaveLength(1);
  });

  it('does not remember a key whose request was refused', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const bad = await sendJson(t, account, { number: ALICE }, { 'Idempotency-Key': 'key-4' });
    expectError(bad, 400, 4000);
    const good = await sendJson(t, account, { number: ALICE, content: 'fixed' }, { 'Idempotency-Key': 'key-4' });
    expectAccepted(good);
  });
});

describe('POST /api/send-message: rate limit', () => {
  it('answers the 4th send in a minute with 429/4001 and Retry-After, then recovers', async () => {
    const t = makeTestApp({ rateLimitPerMinute: 3 });
    const account = await t.createAccount();
    for (let i = 0; i < 3; i++) expectAccepted(await sendJson(t, account, { number: ALICE, content: `n${i}` }));

    const limited = await sendJson(t, account, { number: ALICE, content: 'n3' });
    expectError(limited, 429, 4001);
    const retryAfter = limited.headers.get('retry-after');
    expect(retryAfter, JSON.stringify(limited.body)).toMatch(/^\d+$/);
    expect(Number(retryAfter), JSON.stringify(limited.body)).toBeGreaterThanOrEqual(1);
    expect(await listMessages(t, account)).toHaveLength(3);

    t.clock.advance(60_000);
    expectAccepted(await sendJson(t, account, { number: ALICE, content: 'after a minute' }));
  });

  it('limits each account separately', async () => {
    const t = makeTestApp({ rateLimitPerMinute: 3 });
    const busy = await t.createAccount();
    const quiet = await t.createAccount();
    for (let i = 0; i < 3; i++) expectAccepted(await sendJson(t, busy, { number: ALICE, content: `n${i}` }));
    expectError(await sendJson(t, busy, { number: ALICE, content: 'too many' }), 429, 4001);
    expectAccepted(await sendJson(t, quiet, { number: ALICE, content: 'my first' }));
  });

  it('does not count an idempotent replay as a send', async () => {
    const t = makeTestApp({ rateLimitPerMinute: 3 });
    const account = await t.createAccount();
    const first = await sendJson(t, account, { number: ALICE, content: 'same' }, { 'Idempotency-Key': 'r' });
    expectAccepted(first);
    for (let i = 0; i < 3; i++) {
      const replay = await sendJson(t, account, { number: ALICE, content: 'same' }, { 'Idempotency-Key': 'r' });
      expect(replay.status, JSON.stringify(replay.body)).toBe(202);
    }
    expectAccepted(await sendJson(t, account, { number: ALICE, content: 'two' }));
    expectAccepted(await sendJson(t, account, { number: ALICE, content: 'three' }));
  });
});

describe('POST /api/send-message: authentication', () => {
  it('answers 401/4010 without credentials and writes nothing', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const reply = await t.call('POST', '/api/send-message', undefined, { number: ALICE, content: 'hi' });
    expectError(reply, 401, 4010);
    expect(await listMessages(t, account)).toEqual([]);
  });

  it('answers 401/4010 before looking at the body', async () => {
    const t = makeTestApp();
    const reply = await rawRequest(t, '/api/send-message', undefined, {
      body: '{not json',
      headers: { 'content-type': 'application/json' },
    });
    expectError(reply, 401, 4010);
  });

  it('answers 401/4010 with a wrong secret', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const reply = await t.call(
      'POST',
      '/api/send-message',
      undefined,
      { number: ALICE, content: 'hi' },
      {
        'svc-api-key-id': account.api_key_id,
        'svc-api-secret-key': 'sk_wrong',
      },
    );
    expectError(reply, 401, 4010);
  });

  it('accepts the sb- header aliases', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const reply = await t.call(
      'POST',
      '/api/send-message',
      undefined,
      { number: ALICE, content: 'hi' },
      {
        'SB-API-KEY-ID': account.api_key_id,
        'SB-API-SECRET-KEY': account.api_secret_key,
      },
    );
    expectAccepted(reply);
  });

  it("does not show one account's message to another via /api/status", async () => {
    const t = makeTestApp();
    const owner = await t.createAccount();
    const stranger = await t.createAccount();
    const sent = await sendJson(t, owner, { number: ALICE, content: 'private' });
    expectAccepted(sent);
    const peek = await t.call('GET', `/api/status?handle=${sent.body.message_handle}`, stranger);
    expectError(peek, 404, 4040);
    expect(await listMessages(t, stranger)).toEqual([]);
  });

  it('answers 404/4040 for an unknown handle', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const reply = await t.call('GET', '/api/status?handle=00000000-0000-4000-8000-000000000000', account);
    expectError(reply, 404, 4040);
  });
});
