import { describe, expect, it } from 'vitest';
import { makeTestApp, type TestAccount, type TestApp } from '../helpers/app.ts';
import { ALICE, BOB, CAROL, DAVE, show } from '../helpers/fixtures.ts';

/** GET /accounts/messages: the list record, filters, paging, validation and account isolation. */

const START = Date.UTC(2026, 10, 23, 9, 30, 0);

type Sent = { handle: string; at: number; body: any };

function query(params: Record<string, string | number>): string {
  const search = new URLSearchParams(Object.entries(params).map(([key, value]) => [key, String(value)]));
  const text = search.toString();
  return text === '' ? '/accounts/messages' : `/accounts/messages?${text}`;
}

async function send(t: TestApp, account: TestAccount, body: Record<string, unknown>): Promise<Sent> {
  const response = await t.call('POST', '/api/send-message', account, body);
  expect(response.status, show(response.body)).toBe(202);
  return { handle: response.body.message_handle, at: t.clock.now(), body: response.body };
}

async function sendGroup(t: TestApp, account: TestAccount, body: Record<string, unknown>): Promise<Sent> {
  const response = await t.call('POST', '/api/send-group-message', account, body);
  expect(response.status, show(response.body)).toBe(202);
  return { handle: response.body.message_handle, at: t.clock.now(), body: response.body };
}

async function list(t: TestApp, account: TestAccount, params: Record<string, string | number> = {}): Promise<any[]> {
  const response = await t.call('GET', query(params), account);
  expect(response.status, `${query(params)} -> ${show(response.body)}`).toBe(200);
  expect(Array.isArray(response.body?.messages), show(response.body)).toBe(true);
  return response.body.messages;
}

async function handles(t: TestApp, account: TestAccount, params: Record<string, string | number> = {}): Promise<string[]> {
  return (await list(t, account, params)).map((record) => record.uuid);
}

async function contactId(t: TestApp, account: TestAccount, phone: string): Promise<string> {
  const response = await t.call('GET', '/accounts/contacts?limit=1000', account);
  expect(response.status, show(response.body)).toBe(200);
  const contact = (response.body as any[]).find((entry) => entry.phone === phone);
  expect(contact, `no contact for ${phone} in ${show(response.body)}`).toBeDefined();
  return contact.cid;
}

function accountIdOf(t: TestApp, account: TestAccount): string {
  const row = t.db.$client.prepare('select id from accounts where email = ?').get(account.email) as { id: string } | undefined;
  if (!row) throw new Error(`no account ${account.email}`);
  return row.id;
}

/** A one-to-one message row written with plain SQL (columns as in migrations/0000_init.sql). */
function insertMessageRow(
  t: TestApp,
  row: {
    handle: string;
    accountId: string;
    isOutbound: boolean;
    status: string;
    content: string;
    lineNumber: string;
    number: string;
    contactId: string | null;
    at: number;
  },
): void {
  t.db.$client
    .prepare(
      `insert into messages (handle, account_id, is_outbound, message_type, status, content, line_number, number, contact_id, date_sent, date_updated)
       values (?, ?, ?, 'message', ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      row.handle,
      row.accountId,
      row.isOutbound ? 1 : 0,
      row.status,
      row.content,
      row.lineNumber,
      row.number,
      row.contactId,
      row.at,
      row.at,
    );
}

/** 'YYYY-MM-DD HH:MM:SS' in UTC. */
function listingDate(epochMs: number): string {
  return new Date(epochMs).toISOString().slice(0, 19).replace('T', ' ');
}

/**
 * A small conversation history, oldest first, with uneven gaps so dates have milliseconds:
 *   s1 ALICE, g1 group(ALICE,BOB), s2 BOB, s3 ALICE (media, style, callback), g2 group(BOB,CAROL), s4 CAROL
 * plus one inbound message from ALICE (inserted through the store: no inbound route exists yet).
 */
async function seed(t: TestApp, account: TestAccount) {
  const s1 = await send(t, account, { number: ALICE, content: 'hello alice' });
  t.clock.advance(61_234);
  const g1 = await sendGroup(t, account, { numbers: [ALICE, BOB], content: 'hello group one' });
  t.clock.advance(2_500);
  const s2 = await send(t, account, { number: BOB, content: 'hello bob' });
  t.clock.advance(3_600_007);
  const s3 = await send(t, account, {
    number: ALICE,
    content: 'photo for alice',
    media_url: 'https://cdn.example.com/pic.jpg',
    send_style: 'confetti',
    status_callback: 'https://hooks.example.com/status',
  });
  t.clock.advance(999);
  const g2 = await sendGroup(t, account, { numbers: [BOB, CAROL], content: 'hello group two' });
  t.clock.advance(86_400_001);
  const s4 = await send(t, account, { number: CAROL, content: 'hello carol' });
  return { s1, g1, s2, s3, g2, s4 };
}

const LIST_RECORD_FIELDS = [
  'date',
  'allowSMS',
  'allow_sms',
  'sendStyle',
  'send_style',
  'type',
  'message_type',
  'uuid',
  'message_handle',
  'media_url',
  'content',
  'number',
  'to_number',
  'from_number',
  'is_outbound',
  'accountEmail',
  'was_downgraded',
  'callbackURL',
  'callback_url',
  'row_id',
  'status',
  'error_code',
  'error_message',
  'error_detail',
  'date_sent',
  'date_updated',
  'phoneID',
  'group_id',
];

function expectSecondsNanos(value: unknown, epochMs: number, context: string) {
  expect(value, context).toEqual({
    _seconds: Math.floor(epochMs / 1000),
    _nanoseconds: (epochMs % 1000) * 1_000_000,
  });
  const stamp = value as { _seconds: number; _nanoseconds: number };
  expect(Number.isInteger(stamp._seconds), context).toBe(true);
  expect(Number.isInteger(stamp._nanoseconds), context).toBe(true);
}

describe('GET /accounts/messages: records', () => {
  it('answers {messages:[...]} newest first, with every list-record field in both spellings', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const seeded = await seed(t, account);
    const response = await t.call('GET', '/accounts/messages', account);
    expect(response.status, show(response.body)).toBe(200);
    expect(Object.keys(response.body), show(response.body)).toEqual(['messages']);
    const records: any[] = response.body.messages;
    const order = [seeded.s4, seeded.g2, seeded.s3, seeded.s2, seeded.g1, seeded.s1];
    expect(
      records.map((record) => record.uuid),
      show(records),
    ).toEqual(order.map((sent) => sent.handle));

    for (const record of records) {
      const context = show(record);
      for (const field of LIST_RECORD_FIELDS) expect(record, `${field} missing in ${context}`).toHaveProperty(field);
      expect(record.uuid, context).toBe(record.message_handle);
      expect(record.uuid, context).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      expect(record.allowSMS, context).toBe(record.allow_sms);
      expect([true, false, null], context).toContain(record.allowSMS);
      expect(record.sendStyle, context).toBe(record.send_style);
      expect(record.type, context).toBe(record.message_type);
      expect(record.callbackURL, context).toBe(record.callback_url);
      expect(typeof record.callbackURL, context).toBe('string');
      expect(record.is_outbound, context).toBe(true);
      expect(record.status, context).toBe('QUEUED');
      expect(record.accountEmail, context).toBe(account.email);
      expect([0, null], context).toContain(record.error_code);
      expect(record.error_message === null || typeof record.error_message === 'string', context).toBe(true);
      expect(record.error_detail === null || typeof record.error_detail === 'string', context).toBe(true);
      expect(record.was_downgraded === null || typeof record.was_downgraded === 'boolean', context).toBe(true);
      expect(record.row_id === null || typeof record.row_id === 'string', context).toBe(true);
      expect(account.numbers, context).toContain(record.phoneID);
      expect(record.from_number, context).toBe(record.phoneID);
    }

    for (const sent of order) {
      const record = records.find((entry) => entry.uuid === sent.handle);
      const context = show(record);
      expect(record.date, context).toBe(new Date(sent.at).toISOString());
      expectSecondsNanos(record.date_sent, sent.at, context);
      expectSecondsNanos(record.date_updated, sent.at, context);
      expect(record.content, context).toBe(sent.body.content);
      expect(record.from_number, context).toBe(sent.body.from_number);
    }

    const single = records.find((record) => record.uuid === seeded.s3.handle);
    expect(single, show(single)).toMatchObject({
      type: 'message',
      message_type: 'message',
      group_id: '',
      number: ALICE,
      to_number: ALICE,
      media_url: 'https://cdn.example.com/pic.jpg',
      send_style: 'confetti',
      sendStyle: 'confetti',
      callback_url: 'https://hooks.example.com/status',
      callbackURL: 'https://hooks.example.com/status',
    });
    const plain = records.find((record) => record.uuid === seeded.s1.handle);
    expect(plain, show(plain)).toMatchObject({ group_id: '', media_url: '', send_style: '', callback_url: '' });

    const group = records.find((record) => record.uuid === seeded.g1.handle);
    expect(group, show(group)).toMatchObject({
      type: 'group',
      message_type: 'group',
      group_id: seeded.g1.body.group_id,
    });
    expect(group.group_id, show(group)).toMatch(/^[0-9a-f-]{36}$/);
    expect([...group.number].sort(), show(group)).toEqual([ALICE, BOB]);
    expect([...group.to_number].sort(), show(group)).toEqual([ALICE, BOB]);
  });

  it('answers an empty list for an account without messages', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const response = await t.call('GET', '/accounts/messages', account);
    expect(response.status, show(response.body)).toBe(200);
    expect(response.body, show(response.body)).toEqual({ messages: [] });
  });

  it('orders messages of the same millisecond newest-inserted first', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const first = await send(t, account, { number: ALICE, content: 'a' });
    const second = await send(t, account, { number: BOB, content: 'b' });
    const third = await send(t, account, { number: ALICE, content: 'c' });
    expect(await handles(t, account)).toEqual([third.handle, second.handle, first.handle]);
  });

  it('needs credentials', async () => {
    const t = makeTestApp();
    const response = await t.call('GET', '/accounts/messages', undefined);
    expect(response.status, show(response.body)).toBe(401);
    expect(response.body, show(response.body)).toMatchObject({ status: 'ERROR', error_code: 4010 });
  });
});

describe('GET /accounts/messages: filters', () => {
  async function seededWithInbound() {
    const t = makeTestApp();
    const account = await t.createAccount();
    const seeded = await seed(t, account);
    const aliceCid = await contactId(t, account, ALICE);
    t.clock.advance(5_000);
    // An inbound message from ALICE: there is no inbound route yet, so it goes straight into the table.
    const inbound = { handle: '00000000-0000-4000-8000-000000000001' };
    insertMessageRow(t, {
      handle: inbound.handle,
      accountId: accountIdOf(t, account),
      isOutbound: false,
      status: 'RECEIVED',
      content: 'reply from alice',
      lineNumber: seeded.s1.body.from_number,
      number: ALICE,
      contactId: aliceCid,
      at: t.clock.now(),
    });
    return { t, account, seeded, aliceCid, inbound };
  }

  it('cid: only that contact’s one-to-one conversation', async () => {
    const { t, account, seeded, aliceCid, inbound } = await seededWithInbound();
    expect(await handles(t, account, { cid: aliceCid })).toEqual([inbound.handle, seeded.s3.handle, seeded.s1.handle]);
    const bobCid = await contactId(t, account, BOB);
    expect(await handles(t, account, { cid: bobCid })).toEqual([seeded.s2.handle]);
    expect(await handles(t, account, { cid: 'no-such-contact' })).toEqual([]);
  });

  it('number: the one-to-one conversation and the groups the number belongs to', async () => {
    const { t, account, seeded, inbound } = await seededWithInbound();
    expect(await handles(t, account, { number: ALICE })).toEqual([inbound.handle, seeded.s3.handle, seeded.g1.handle, seeded.s1.handle]);
    expect(await handles(t, account, { number: BOB })).toEqual([seeded.g2.handle, seeded.s2.handle, seeded.g1.handle]);
    expect(await handles(t, account, { number: CAROL })).toEqual([seeded.s4.handle, seeded.g2.handle]);
    expect(await handles(t, account, { number: DAVE })).toEqual([]);
  });

  it('number: accepts an unencoded + (decoded as a space) as curl users send it', async () => {
    const { t, account, seeded } = await seededWithInbound();
    const response = await t.call('GET', `/accounts/messages?number=${CAROL}`, account);
    expect(response.status, show(response.body)).toBe(200);
    expect(response.body.messages.map((m: { uuid: string }) => m.uuid)).toEqual([seeded.s4.handle, seeded.g2.handle]);
  });

  it('number: accepts the formatted spelling of the same number', async () => {
    const { t, account, seeded } = await seededWithInbound();
    expect(await handles(t, account, { number: '+1 (415) 555-0102' })).toEqual([seeded.s4.handle, seeded.g2.handle]);
  });

  it('number: a member added later with modify-group finds the group', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const group = await sendGroup(t, account, { numbers: [ALICE, BOB], content: 'before' });
    const modified = await t.call('POST', '/api/modify-group', account, {
      group_id: group.body.group_id,
      modify_type: 'add_recipient',
      number: DAVE,
    });
    expect(modified.status, show(modified.body)).toBe(200);
    t.clock.advance(1_000);
    const after = await sendGroup(t, account, { group_id: group.body.group_id, content: 'after' });
    // Whether messages from before DAVE joined should be listed is left open; the later one must be.
    expect(await handles(t, account, { number: DAVE })).toContain(after.handle);
    expect(await handles(t, account, { group_id: group.body.group_id })).toEqual([after.handle, group.handle]);
  });

  it('group_id: only that group’s messages', async () => {
    const { t, account, seeded } = await seededWithInbound();
    const again = await sendGroup(t, account, { group_id: seeded.g1.body.group_id, content: 'group one again' });
    expect(again.body.group_id).toBe(seeded.g1.body.group_id);
    expect(await handles(t, account, { group_id: seeded.g1.body.group_id })).toEqual([again.handle, seeded.g1.handle]);
    expect(await handles(t, account, { group_id: seeded.g2.body.group_id })).toEqual([seeded.g2.handle]);
    expect(await handles(t, account, { group_id: '11111111-1111-4111-8111-111111111111' })).toEqual([]);
  });

  it('status: only messages in that status', async () => {
    const { t, account, seeded, inbound } = await seededWithInbound();
    t.db.$client.prepare(`update messages set status = 'SENT' where handle = ?`).run(seeded.s2.handle);
    const queued = await handles(t, account, { status: 'QUEUED' });
    expect(queued).toEqual([seeded.s4.handle, seeded.g2.handle, seeded.s3.handle, seeded.g1.handle, seeded.s1.handle]);
    expect(await handles(t, account, { status: 'SENT' })).toEqual([seeded.s2.handle]);
    expect(await handles(t, account, { status: 'RECEIVED' })).toEqual([inbound.handle]);
    expect(await handles(t, account, { status: 'READ' })).toEqual([]);
    for (const record of await list(t, account, { status: 'QUEUED' })) expect(record.status, show(record)).toBe('QUEUED');
  });

  it('is_outbound: true and false (and 1/0)', async () => {
    const { t, account, seeded, inbound } = await seededWithInbound();
    const outbound = [seeded.s4, seeded.g2, seeded.s3, seeded.s2, seeded.g1, seeded.s1].map((sent) => sent.handle);
    expect(await handles(t, account, { is_outbound: 'true' })).toEqual(outbound);
    expect(await handles(t, account, { is_outbound: 'false' })).toEqual([inbound.handle]);
    expect(await handles(t, account, { is_outbound: '1' })).toEqual(outbound);
    expect(await handles(t, account, { is_outbound: '0' })).toEqual([inbound.handle]);
    const [record] = await list(t, account, { is_outbound: 'false' });
    expect(record, show(record)).toMatchObject({
      is_outbound: false,
      status: 'RECEIVED',
      number: ALICE,
      from_number: ALICE,
      to_number: seeded.s1.body.from_number,
      phoneID: seeded.s1.body.from_number,
      group_id: '',
    });
  });

  it('from_date: messages sent at or after that UTC second', async () => {
    const { t, account, seeded, inbound } = await seededWithInbound();
    const all = await handles(t, account);
    expect(await handles(t, account, { from_date: '2000-01-01 00:00:00' })).toEqual(all);
    expect(await handles(t, account, { from_date: '2100-01-01 00:00:00' })).toEqual([]);
    // s1 was sent exactly on a whole second: it is included by that second.
    expect(seeded.s1.at % 1000).toBe(0);
    expect(await handles(t, account, { from_date: listingDate(seeded.s1.at) })).toEqual(all);
    // g1 was sent at hh:mm:ss.234: its second includes it, the next second does not.
    expect(await handles(t, account, { from_date: listingDate(seeded.g1.at) })).toEqual(all.slice(0, -1));
    expect(await handles(t, account, { from_date: listingDate(seeded.g1.at + 1000) })).toEqual(all.slice(0, -2));
    // A day later only s4 and the inbound message.
    expect(await handles(t, account, { from_date: listingDate(seeded.s4.at - 500) })).toEqual([inbound.handle, seeded.s4.handle]);
    expect(listingDate(START)).toBe('2026-11-23 09:30:00');
  });

  it('combinations narrow each other', async () => {
    const { t, account, seeded, aliceCid, inbound } = await seededWithInbound();
    expect(await handles(t, account, { number: ALICE, is_outbound: 'true' })).toEqual([
      seeded.s3.handle,
      seeded.g1.handle,
      seeded.s1.handle,
    ]);
    expect(await handles(t, account, { number: ALICE, is_outbound: 'false' })).toEqual([inbound.handle]);
    expect(await handles(t, account, { cid: aliceCid, from_date: listingDate(seeded.s3.at) })).toEqual([inbound.handle, seeded.s3.handle]);
    expect(await handles(t, account, { number: BOB, group_id: seeded.g2.body.group_id })).toEqual([seeded.g2.handle]);
    expect(await handles(t, account, { number: ALICE, group_id: seeded.g2.body.group_id })).toEqual([]);
    expect(await handles(t, account, { cid: aliceCid, status: 'RECEIVED' })).toEqual([inbound.handle]);
    expect(await handles(t, account, { number: CAROL, status: 'QUEUED', from_date: listingDate(seeded.s4.at) })).toEqual([
      seeded.s4.handle,
    ]);
    expect(await handles(t, account, { number: ALICE, limit: 2, offset: 1 })).toEqual([seeded.s3.handle, seeded.g1.handle]);
  });
});

describe('GET /accounts/messages: paging', () => {
  async function sendMany(t: TestApp, account: TestAccount, count: number): Promise<string[]> {
    const sent: string[] = [];
    for (let i = 0; i < count; i += 1) {
      const number = `+1415555${String(100 + (i % 50)).padStart(4, '0')}`;
      const response = await t.call('POST', '/api/send-message', account, { number, content: `message ${i}` });
      expect(response.status, show(response.body)).toBe(202);
      sent.push(response.body.message_handle);
      t.clock.advance(7);
    }
    return sent.reverse();
  }

  it('limit defaults to 100; limit/offset pages do not overlap and cover everything', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const newestFirst = await sendMany(t, account, 105);

    const firstPage = await handles(t, account);
    expect(firstPage.length).toBe(100);
    expect(firstPage).toEqual(newestFirst.slice(0, 100));

    for (const pageSize of [7, 30, 100]) {
      const seen: string[] = [];
      for (let offset = 0; offset < 120; offset += pageSize) {
        const page = await handles(t, account, { limit: pageSize, offset });
        expect(page.length, `limit ${pageSize} offset ${offset}`).toBeLessThanOrEqual(pageSize);
        seen.push(...page);
      }
      expect(new Set(seen).size, `limit ${pageSize}: duplicates across pages`).toBe(seen.length);
      expect(seen, `limit ${pageSize}`).toEqual(newestFirst);
    }
    expect(await handles(t, account, { offset: 105 })).toEqual([]);
    expect(await handles(t, account, { offset: 104, limit: 5 })).toEqual([newestFirst[104]]);
  });

  it('a limit over 1000 is clamped to 1000, not refused', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const line = account.numbers[0]!;
    const accountId = accountIdOf(t, account);
    // 1005 messages straight into the table: sending them one by one over HTTP would take too long here.
    t.db.$client.transaction(() => {
      for (let i = 0; i < 1005; i += 1) {
        const handle = `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
        insertMessageRow(t, {
          handle,
          accountId,
          isOutbound: true,
          status: 'QUEUED',
          content: `m${i}`,
          lineNumber: line,
          number: ALICE,
          contactId: null,
          at: START + i,
        });
      }
    })();
    const response = await t.call('GET', '/accounts/messages?limit=5000', account);
    expect(response.status, show(response.body)).toBe(200);
    expect(response.body.messages.length).toBe(1000);
    const exactly = await t.call('GET', '/accounts/messages?limit=1000', account);
    expect(exactly.body.messages.length).toBe(1000);
    const huge = await t.call('GET', '/accounts/messages?limit=99999999999', account);
    expect(huge.status, show(huge.body)).toBe(200);
    expect(huge.body.messages.length).toBe(1000);
    const rest = await t.call('GET', '/accounts/messages?limit=5000&offset=1000', account);
    expect(rest.body.messages.length).toBe(5);
  });

  it('a small limit over the same sends is clamped too (200)', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    await send(t, account, { number: ALICE, content: 'x' });
    const response = await t.call('GET', '/accounts/messages?limit=1001', account);
    expect(response.status, show(response.body)).toBe(200);
    expect(response.body.messages.length).toBe(1);
  });
});

describe('GET /accounts/messages: invalid queries', () => {
  const invalid: Array<[string, Record<string, string>]> = [
    ['from_date with month 13', { from_date: '2026-13-01 00:00:00' }],
    ['from_date in ISO form', { from_date: '2026-11-23T09:30:00Z' }],
    ['from_date February 30th', { from_date: '2026-02-30 00:00:00' }],
    ['from_date hour 24', { from_date: '2026-11-23 24:00:00' }],
    ['from_date date only', { from_date: '2026-11-23' }],
    ['from_date empty', { from_date: '' }],
    ['limit not a number', { limit: 'x' }],
    ['limit zero', { limit: '0' }],
    ['limit negative', { limit: '-5' }],
    ['limit fractional', { limit: '1.5' }],
    ['offset negative', { offset: '-1' }],
    ['offset not a number', { offset: 'abc' }],
    ['status unknown', { status: 'FOO' }],
    ['status lower-case', { status: 'queued' }],
    ['is_outbound maybe', { is_outbound: 'maybe' }],
    ['number not a phone number', { number: 'abc' }],
    ['number empty', { number: '' }],
  ];

  for (const [name, params] of invalid) {
    it(`${name} -> 400 4000`, async () => {
      const t = makeTestApp();
      const account = await t.createAccount();
      await send(t, account, { number: ALICE, content: 'x' });
      const path = query(params);
      const response = await t.call('GET', path, account);
      expect(response.status, `${path} -> ${show(response.body)}`).toBe(400);
      expect(response.body, `${path} -> ${show(response.body)}`).toEqual({
        status: 'ERROR',
        error_code: 4000,
        error_message: expect.any(String),
        message: response.body.error_message,
        error_detail: null,
      });
      expect(response.body.error_message.length, show(response.body)).toBeGreaterThan(0);
      expect(response.headers.get('content-type')).toMatch(/application\/json/);
    });
  }
});

describe('GET /accounts/messages: account isolation', () => {
  it('account B never sees account A’s messages, whatever it filters by', async () => {
    const t = makeTestApp();
    const a = await t.createAccount();
    const b = await t.createAccount();
    const seeded = await seed(t, a);
    const aliceCidOfA = await contactId(t, a, ALICE);
    const handlesOfA = new Set(Object.values(seeded).map((sent) => sent.handle));

    expect(await handles(t, b)).toEqual([]);
    expect(await handles(t, b, { cid: aliceCidOfA })).toEqual([]);
    expect(await handles(t, b, { number: ALICE })).toEqual([]);
    expect(await handles(t, b, { group_id: seeded.g1.body.group_id })).toEqual([]);
    expect(await handles(t, b, { status: 'QUEUED' })).toEqual([]);

    // B talks to the same people and forms the same group: it still sees only its own messages.
    t.clock.advance(1_000);
    const own = await send(t, b, { number: ALICE, content: 'from b' });
    const ownGroup = await sendGroup(t, b, { numbers: [ALICE, BOB], content: 'group from b' });
    expect(ownGroup.body.group_id).not.toBe(seeded.g1.body.group_id);
    const everything = await list(t, b, { limit: 1000 });
    expect(everything.map((record) => record.uuid)).toEqual([ownGroup.handle, own.handle]);
    for (const record of everything) {
      expect(handlesOfA.has(record.uuid), show(record)).toBe(false);
      expect(record.accountEmail, show(record)).toBe(b.email);
    }
    expect(await handles(t, b, { number: ALICE })).toEqual([ownGroup.handle, own.handle]);
    expect(await handles(t, b, { cid: aliceCidOfA })).toEqual([]);
    expect(await handles(t, b, { group_id: seeded.g1.body.group_id })).toEqual([]);
    const bobCidOfB = await contactId(t, b, ALICE);
    expect(bobCidOfB).not.toBe(aliceCidOfA);
    expect(await handles(t, b, { cid: bobCidOfB })).toEqual([own.handle]);

    // And A is unaffected by B.
    expect((await handles(t, a, { limit: 1000 })).length).toBe(6);
    expect(await handles(t, a, { number: ALICE })).toEqual([seeded.s3.handle, seeded.g1.handle, seeded.s1.handle]);
  });
});
