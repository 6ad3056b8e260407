import { describe, expect, it } from 'vitest';
import { makeTestApp, type TestAccount, type TestApp } from '../helpers/app.ts';
import { expectAccepted, expectMessageError, expectRejectedWithoutWrite, listMessages } from '../helpers/expect.ts';
import { ALICE, BOB, CAROL, DAVE, distinctNumbers, UUID_LOWER } from '../helpers/fixtures.ts';
import { writeCounter } from '../helpers/write-counter.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function sendGroup(t: TestApp, account: TestAccount, body: unknown, headers: Record<string, string> = {}) {
  return t.call('POST', '/api/send-group-message', account, body, headers);
}

describe('POST /api/send-group-message: happy path', () => {
  it('answers 202 with a group Message object', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const members = [ALICE, BOB, CAROL];
    const sent = await sendGroup(t, account, { numbers: members, content: 'hello group' });
    const dump = JSON.stringify(sent.body);
    expectAccepted(sent, 'group');
    const body = sent.body;
    expect(body.message_handle, dump).toMatch(UUID_LOWER);
    expect(body.group_id, dump).toMatch(UUID);
    expect(body.is_outbound, dump).toBe(true);
    expect(body.content, dump).toBe('hello group');
    expect(body.plan, dump).toBe('sapphire');
    expect(body.accountEmail, dump).toBe(account.email);
    expect(body.error_code, dump).toBeNull();
    expect(body.date_sent, dump).toBe(new Date(t.clock.now()).toISOString());
    expect(account.numbers, dump).toContain(body.from_number);
    for (const field of ['number', 'to_number', 'numbers', 'to_numbers']) {
      expect(Array.isArray(body[field]), `${field}: ${dump}`).toBe(true);
      expect([...body[field]].sort(), `${field}: ${dump}`).toEqual([...members].sort());
    }
    expect(Array.isArray(body.participants), dump).toBe(true);
    expect(body.participants, dump).toEqual(expect.arrayContaining([...members, body.from_number]));
    expect(body.participants, dump).toHaveLength(members.length + 1);
    expect(typeof body.opted_out, dump).toBe('boolean');
  });

  it('is found by GET /api/status and listed with its group_id', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const sent = await sendGroup(t, account, { numbers: [ALICE, BOB], content: 'hi' });
    expectAccepted(sent, 'group');
    const found = await t.call('GET', `/api/status?handle=${sent.body.message_handle}`, account);
    expect(found.status, JSON.stringify(found.body)).toBe(200);
    expect(found.body.group_id, JSON.stringify(found.body)).toBe(sent.body.group_id);
    expect(found.body.message_type, JSON.stringify(found.body)).toBe('group');
    const messages = await listMessages(t, account);
    expect(messages, JSON.stringify(messages)).toHaveLength(1);
    expect(messages[0].group_id, JSON.stringify(messages)).toBe(sent.body.group_id);
  });

  it('accepts media_url without content', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const sent = await sendGroup(t, account, { numbers: [ALICE, BOB], media_url: 'https://cdn.example.com/party.gif' });
    expectAccepted(sent, 'group');
    expect(sent.body.media_url, JSON.stringify(sent.body)).toBe('https://cdn.example.com/party.gif');
  });
});

describe('POST /api/send-group-message: group identity', () => {
  it('reuses the group for the same set of numbers in any order, with duplicates', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const first = await sendGroup(t, account, { numbers: [ALICE, BOB, CAROL], content: 'one' });
    expectAccepted(first, 'group');
    const reordered = await sendGroup(t, account, { numbers: [CAROL, ALICE, BOB], content: 'two' });
    expectAccepted(reordered, 'group');
    expect(reordered.body.group_id, JSON.stringify(reordered.body)).toBe(first.body.group_id);
    const duplicated = await sendGroup(t, account, { numbers: [BOB, CAROL, BOB, ALICE, CAROL], content: 'three' });
    expectAccepted(duplicated, 'group');
    expect(duplicated.body.group_id, JSON.stringify(duplicated.body)).toBe(first.body.group_id);
    expect([...duplicated.body.number].sort(), JSON.stringify(duplicated.body)).toEqual([ALICE, BOB, CAROL].sort());
    // The group keeps its line.
    expect(duplicated.body.from_number, JSON.stringify(duplicated.body)).toBe(first.body.from_number);
  });

  it('creates a new group for a different set', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const first = await sendGroup(t, account, { numbers: [ALICE, BOB, CAROL], content: 'one' });
    const subset = await sendGroup(t, account, { numbers: [ALICE, BOB], content: 'two' });
    const superset = await sendGroup(t, account, { numbers: [ALICE, BOB, CAROL, DAVE], content: 'three' });
    for (const reply of [first, subset, superset]) expectAccepted(reply, 'group');
    const ids = [first.body.group_id, subset.body.group_id, superset.body.group_id];
    expect(new Set(ids).size, JSON.stringify(ids)).toBe(3);
  });

  it('sends to the current members when given group_id alone', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const first = await sendGroup(t, account, { numbers: [ALICE, BOB, CAROL], content: 'one' });
    expectAccepted(first, 'group');
    const byId = await sendGroup(t, account, { group_id: first.body.group_id, content: 'by id' });
    const dump = JSON.stringify(byId.body);
    expectAccepted(byId, 'group');
    expect(byId.body.group_id, dump).toBe(first.body.group_id);
    expect([...byId.body.number].sort(), dump).toEqual([ALICE, BOB, CAROL].sort());
    expect([...byId.body.to_numbers].sort(), dump).toEqual([ALICE, BOB, CAROL].sort());
    expect(byId.body.from_number, dump).toBe(first.body.from_number);
  });

  it('accepts group_id with matching numbers and refuses mismatching numbers', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const first = await sendGroup(t, account, { numbers: [ALICE, BOB, CAROL], content: 'one' });
    expectAccepted(first, 'group');
    const groupId = first.body.group_id;

    const matching = await sendGroup(t, account, { group_id: groupId, numbers: [CAROL, BOB, ALICE], content: 'ok' });
    expectAccepted(matching, 'group');
    expect(matching.body.group_id, JSON.stringify(matching.body)).toBe(groupId);

    const mismatching = await sendGroup(t, account, { group_id: groupId, numbers: [ALICE, BOB, DAVE], content: 'no' });
    expectMessageError(mismatching, 400, 4000);
    const subset = await sendGroup(t, account, { group_id: groupId, numbers: [ALICE, BOB], content: 'no' });
    expectMessageError(subset, 400, 4000);
    expect(await listMessages(t, account)).toHaveLength(2);
  });

  it('answers 404/4040 for an unknown group_id', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const reply = await sendGroup(t, account, { group_id: '8a4c1e5e-3b8f-4d7e-9d55-1c2f3e4a5b6c', content: 'hi' });
    await expectRejectedWithoutWrite(t, account, reply, 4040, 404);
  });

  it("answers 404/4040 for another account's group_id, without leaking it", async () => {
    const t = makeTestApp();
    const owner = await t.createAccount();
    const stranger = await t.createAccount();
    const sent = await sendGroup(t, owner, { numbers: [ALICE, BOB], content: 'ours' });
    expectAccepted(sent, 'group');
    const reply = await sendGroup(t, stranger, { group_id: sent.body.group_id, content: 'sneaky' });
    await expectRejectedWithoutWrite(t, stranger, reply, 4040, 404);
    const unknown = await sendGroup(t, stranger, { group_id: '8a4c1e5e-3b8f-4d7e-9d55-1c2f3e4a5b6c', content: 'x' });
    // Same answer as for a group that does not exist (apart from the id named).
    expect(reply.body.error_message.replaceAll(sent.body.group_id, 'ID'), JSON.stringify(reply.body)).toBe(
      unknown.body.error_message.replaceAll('8a4c1e5e-3b8f-4d7e-9d55-1c2f3e4a5b6c', 'ID'),
    );
    // The same set of numbers for the other account is its own group.
    const own = await sendGroup(t, stranger, { numbers: [ALICE, BOB], content: 'mine' });
    expectAccepted(own, 'group');
    expect(own.body.group_id, JSON.stringify(own.body)).not.toBe(sent.body.group_id);
  });
});

describe('POST /api/send-group-message: validation', () => {
  const invalidBodies: Array<[string, Record<string, unknown>]> = [
    ['neither numbers nor group_id', { content: 'hi' }],
    ['neither content nor media_url', { numbers: [ALICE, BOB] }],
    ['an empty numbers list', { numbers: [], content: 'hi' }],
    ['a single person', { numbers: [ALICE], content: 'hi' }],
    ['one person listed twice', { numbers: [ALICE, ALICE], content: 'hi' }],
    ['an invalid member number', { numbers: [ALICE, 'nope'], content: 'hi' }],
    ['numbers that is not an array', { numbers: ALICE, content: 'hi' }],
    ['a bad send_style', { numbers: [ALICE, BOB], content: 'hi', send_style: 'bounce' }],
    ['a signed media_url', { numbers: [ALICE, BOB], media_url: 'https://cdn.example.com/a.jpg?X-Amz-Signature=abc' }],
    ['content of 18996 characters', { numbers: [ALICE, BOB], content: 'z'.repeat(18996) }],
    ['a relative status_callback', { numbers: [ALICE, BOB], content: 'hi', status_callback: '/cb' }],
    ['26 distinct numbers', { numbers: distinctNumbers(26), content: 'hi' }],
  ];

  it.each(invalidBodies)('refuses %s with 400/4000 and writes nothing', async (_label, body) => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const reply = await sendGroup(t, account, body);
    await expectRejectedWithoutWrite(t, account, reply);
  });

  it('refuses malformed JSON', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const response = await t.app.request('/api/send-group-message', {
      method: 'POST',
      headers: { ...account.headers, 'content-type': 'application/json' },
      body: '{"numbers": [',
    });
    await expectRejectedWithoutWrite(t, account, { status: response.status, headers: response.headers, body: await response.json() });
  });

  it('refuses a form-encoded body (group sends are JSON only)', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const response = await t.app.request('/api/send-group-message', {
      method: 'POST',
      headers: account.headers,
      body: new URLSearchParams({ numbers: ALICE, content: 'hi' }),
    });
    await expectRejectedWithoutWrite(t, account, { status: response.status, headers: response.headers, body: await response.json() });
  });

  it('accepts 25 distinct numbers', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const numbers = distinctNumbers(25);
    const sent = await sendGroup(t, account, { numbers, content: 'big group' });
    expectAccepted(sent, 'group');
    expect(sent.body.number, JSON.stringify(sent.body)).toHaveLength(25);
  });

  it('accepts 25 distinct numbers with one listed twice (26 entries)', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const numbers = [...distinctNumbers(25), distinctNumbers(1)[0]!];
    const sent = await sendGroup(t, account, { numbers, content: 'big group' });
    expectAccepted(sent, 'group');
    expect(sent.body.number, JSON.stringify(sent.body)).toHaveLength(25);
  });

  it("does not count the account's own number as a member", async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const ownLine = account.numbers[0]!;

    // Own line + one person is still fewer than 2 people.
    const tooFew = await sendGroup(t, account, { numbers: [ALICE, ownLine], content: 'hi' });
    await expectRejectedWithoutWrite(t, account, tooFew);

    // Own line + two people is the same group as the two people.
    const withLine = await sendGroup(t, account, { numbers: [ALICE, ownLine, BOB], content: 'hi' });
    expectAccepted(withLine, 'group');
    expect([...withLine.body.number].sort(), JSON.stringify(withLine.body)).toEqual([ALICE, BOB].sort());
    const without = await sendGroup(t, account, { numbers: [BOB, ALICE], content: 'hi' });
    expectAccepted(without, 'group');
    expect(without.body.group_id, JSON.stringify(without.body)).toBe(withLine.body.group_id);
  });

  it("accepts 25 people plus the account's own number", async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const numbers = [...distinctNumbers(25), account.numbers[0]!];
    const sent = await sendGroup(t, account, { numbers, content: 'full house' });
    expectAccepted(sent, 'group');
    expect(sent.body.number, JSON.stringify(sent.body)).toHaveLength(25);
    expect(sent.body.number, JSON.stringify(sent.body)).not.toContain(account.numbers[0]);
  });

  it.each(['911', '112', '999', '+911', '12345'])('refuses a blacklisted member %s with 400/4002', async (number) => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const reply = await sendGroup(t, account, { numbers: [ALICE, number, BOB], content: 'hi' });
    await expectRejectedWithoutWrite(t, account, reply, 4002);
  });

  it('refuses a from_number that is not one of the account numbers', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const writes = writeCounter(t);
    const before = await writes();
    const reply = await sendGroup(t, account, { numbers: [ALICE, BOB], content: 'hi', from_number: '+14155550109' });
    // Not even a group created and rolled back: the line is checked first.
    expect(await writes()).toBe(before);
    await expectRejectedWithoutWrite(t, account, reply);
  });

  it('uses an explicit from_number of the account', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const line = account.numbers[1]!;
    const sent = await sendGroup(t, account, { numbers: [ALICE, BOB], content: 'hi', from_number: line });
    expectAccepted(sent, 'group');
    expect(sent.body.from_number, JSON.stringify(sent.body)).toBe(line);
    expect(sent.body.participants, JSON.stringify(sent.body)).toContain(line);
  });

  it('answers 401/4010 without credentials', async () => {
    const t = makeTestApp();
    const reply = await t.call('POST', '/api/send-group-message', undefined, { numbers: [ALICE, BOB], content: 'hi' });
    expectMessageError(reply, 401, 4010);
  });
});

describe('POST /api/send-group-message: plan gating', () => {
  it('answers 403/4030 naming sapphire for a blue account, and writes nothing', async () => {
    const t = makeTestApp();
    const account = await t.createAccount({ plan: 'blue' });
    const reply = await sendGroup(t, account, { numbers: [ALICE, BOB], content: 'hi' });
    await expectRejectedWithoutWrite(t, account, reply, 4030, 403);
    expect(reply.body.error_message, JSON.stringify(reply.body)).toMatch(/sapphire/);
  });

  it('still lets a blue account send one-to-one messages', async () => {
    const t = makeTestApp();
    const account = await t.createAccount({ plan: 'blue' });
    const reply = await t.call('POST', '/api/send-message', account, { number: ALICE, content: 'hi' });
    expect(reply.status, JSON.stringify(reply.body)).toBe(202);
    expect(reply.body.plan, JSON.stringify(reply.body)).toBe('blue');
  });
});

describe('POST /api/send-group-message: Idempotency-Key', () => {
  it('replays the first response for the same key and body', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const body = { numbers: [ALICE, BOB], content: 'once' };
    const first = await sendGroup(t, account, body, { 'Idempotency-Key': 'g-1' });
    expectAccepted(first, 'group');
    t.clock.advance(5000);
    const second = await sendGroup(t, account, body, { 'Idempotency-Key': 'g-1' });
    expect(second.status, JSON.stringify(second.body)).toBe(202);
    expect(second.body, JSON.stringify(second.body)).toEqual(first.body);
    const messages = await listMessages(t, account);
    expect(
      messages.map((m) => m.message_handle),
      JSON.stringify(messages),
    ).toEqual([first.body.message_handle]);
  });

  it('answers 409/4090 for the same key with a different body', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const first = await sendGroup(t, account, { numbers: [ALICE, BOB], content: 'one' }, { 'Idempotency-Key': 'g-2' });
    expectAccepted(first, 'group');
    const second = await sendGroup(t, account, { numbers: [ALICE, CAROL], content: 'one' }, { 'Idempotency-Key': 'g-2' });
    expectMessageError(second, 409, 4090);
    expect(await listMessages(t, account)).toHaveLength(1);
  });

  it('sends a new message for the same key after 24 hours', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const body = { numbers: [ALICE, BOB], content: 'daily' };
    const first = await sendGroup(t, account, body, { 'Idempotency-Key': 'g-3' });
    t.clock.advance(24 * 3600 * 1000 + 1);
    const second = await sendGroup(t, account, body, { 'Idempotency-Key': 'g-3' });
    expectAccepted(first, 'group');
    expectAccepted(second, 'group');
    expect(second.body.message_handle, JSON.stringify(second.body)).not.toBe(first.body.message_handle);
    expect(second.body.group_id, JSON.stringify(second.body)).toBe(first.body.group_id);
    expect(await listMessages(t, account)).toHaveLength(2);
  });

  it('keeps keys per account', async () => {
    const t = makeTestApp();
    const one = await t.createAccount();
    const two = await t.createAccount();
    const body = { numbers: [ALICE, BOB], content: 'shared key' };
    const first = await sendGroup(t, one, body, { 'Idempotency-Key': 'g-4' });
    const second = await sendGroup(t, two, body, { 'Idempotency-Key': 'g-4' });
    expectAccepted(first, 'group');
    expectAccepted(second, 'group');
    expect(second.body.message_handle, JSON.stringify(second.body)).not.toBe(first.body.message_handle);
    expect(second.body.group_id, JSON.stringify(second.body)).not.toBe(first.body.group_id);
  });
});

describe('POST /api/send-group-message: rate limit', () => {
  it('counts group sends against the per-account limit', async () => {
    const t = makeTestApp({ rateLimitPerMinute: 3 });
    const account = await t.createAccount();
    for (let i = 0; i < 3; i++) expectAccepted(await sendGroup(t, account, { numbers: [ALICE, BOB], content: `n${i}` }), 'group');
    const limited = await sendGroup(t, account, { numbers: [ALICE, BOB], content: 'n3' });
    expectMessageError(limited, 429, 4001);
    expect(Number(limited.headers.get('retry-after')), JSON.stringify(limited.body)).toBeGreaterThanOrEqual(1);
    t.clock.advance(60_000);
    expectAccepted(await sendGroup(t, account, { numbers: [ALICE, BOB], content: 'later' }), 'group');
  });
});
