import { describe, expect, it } from 'vitest';
import { TOTAL_RECOUNT_MS } from '../../src/db/sqlite/queries/messages-v2.ts';
import { workerIdOf } from '../../src/domain/line-state.ts';
import { makeTestApp, type TestAccount, type TestApp } from '../helpers/app.ts';
import { ALICE, BOB, CAROL, show } from '../helpers/fixtures.ts';

/** GET /api/v2/messages and /api/v2/messages/{id} (the SDK's messages.list and messages.retrieve). */

const ROW_FIELDS = [
  'accountEmail',
  'content',
  'date_sent',
  'date_updated',
  'error_code',
  'error_detail',
  'error_message',
  'error_reason',
  'from_number',
  'group_display_name',
  'group_id',
  'is_outbound',
  'media_url',
  'message_handle',
  'message_type',
  'number',
  'opted_out',
  'participants',
  'plan',
  'reply_to',
  'seat_id',
  'send_style',
  'sendblue_number',
  'sender_email',
  'service',
  'status',
  'thread_originator',
  'to_number',
  'was_downgraded',
].sort();

function path(params: Record<string, string | number> = {}): string {
  const search = new URLSearchParams(Object.entries(params).map(([key, value]) => [key, String(value)])).toString();
  return search === '' ? '/api/v2/messages' : `/api/v2/messages?${search}`;
}

async function list(t: TestApp, account: TestAccount, params: Record<string, string | number> = {}) {
  const response = await t.call('GET', path(params), account);
  expect(response.status, `${path(params)} -> ${show(response.body)}`).toBe(200);
  return response.body as { status: string; data: any[]; pagination: { total: number; limit: number; offset: number; hasMore: boolean } };
}

async function handles(t: TestApp, account: TestAccount, params: Record<string, string | number> = {}) {
  return (await list(t, account, params)).data.map((row) => row.message_handle);
}

/**
 * Sends to ALICE, BOB (one minute apart), a group message, and ALICE writing back: four messages
 * of one account, newest last in `sent`.
 */
async function conversation(t: TestApp, account: TestAccount) {
  const sent: string[] = [];
  for (const body of [
    { number: ALICE, content: 'hello alice', send_style: 'slam' },
    { number: BOB, content: 'hello bob', media_url: 'https://example.com/cat.jpg' },
  ]) {
    const response = await t.call('POST', '/api/send-message', account, body);
    expect(response.status, show(response.body)).toBe(202);
    sent.push(response.body.message_handle);
    t.clock.advance(60_000);
  }
  const group = await t.call('POST', '/api/send-group-message', account, { numbers: [ALICE, CAROL], content: 'hello both' });
  expect(group.status, show(group.body)).toBe(202);
  sent.push(group.body.message_handle);
  t.clock.advance(60_000);
  const inbound = await t.call('POST', '/sandbox/inbound', account, { number: ALICE, content: 'hi back' });
  expect(inbound.status, show(inbound.body)).toBe(200);
  sent.push(inbound.body.message_handle);
  return { toAlice: sent[0]!, toBob: sent[1]!, group: sent[2]!, fromAlice: sent[3]!, groupId: group.body.group_id as string };
}

function setStatus(t: TestApp, handle: string, status: string, downgraded: boolean | null, updatedAt?: number) {
  t.db.$client
    .prepare('update messages set status = ?, was_downgraded = ?, date_updated = coalesce(?, date_updated) where handle = ?')
    .run(status, downgraded === null ? null : Number(downgraded), updatedAt ?? null, handle);
}

describe('GET /api/v2/messages', () => {
  it('lists the account messages newest first as Message rows with every field', async () => {
    const t = makeTestApp();
    const account = await t.createAccount({ numbers: 1 });
    const m = await conversation(t, account);
    const page = await list(t, account);
    expect(page.status).toBe('OK');
    expect(page.data.map((row) => row.message_handle)).toEqual([m.fromAlice, m.group, m.toBob, m.toAlice]);
    expect(page.pagination).toEqual({ total: 4, limit: 100, offset: 0, hasMore: false });
    for (const row of page.data) expect(Object.keys(row).sort()).toEqual(ROW_FIELDS);

    const line = account.numbers[0]!;
    const [fromAlice, group, toBob, toAlice] = page.data;
    expect(toAlice).toMatchObject({
      accountEmail: account.email,
      content: 'hello alice',
      from_number: line,
      to_number: ALICE,
      number: ALICE,
      sendblue_number: line,
      is_outbound: true,
      message_type: 'message',
      send_style: 'slam',
      media_url: null,
      group_id: null,
      group_display_name: null,
      participants: [ALICE, line],
      service: 'iMessage',
      status: 'QUEUED',
      reply_to: null,
      seat_id: null,
      sender_email: null,
      opted_out: false,
      plan: 'sapphire',
      was_downgraded: false,
      error_code: null,
    });
    expect(toAlice.date_sent).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(toBob.media_url).toBe('https://example.com/cat.jpg');
    expect(group).toMatchObject({ message_type: 'group', group_id: m.groupId, group_display_name: '', number: '' });
    expect(group.participants).toEqual(expect.arrayContaining([ALICE, CAROL, line]));
    expect(fromAlice).toMatchObject({ is_outbound: false, from_number: ALICE, to_number: line, number: ALICE, status: 'RECEIVED' });
  });

  it('filters by number, from_number, to_number, line, worker_id, group, direction and type', async () => {
    const t = makeTestApp();
    const account = await t.createAccount({ numbers: 1 });
    const m = await conversation(t, account);
    const line = account.numbers[0]!;
    expect(await handles(t, account, { number: ALICE })).toEqual([m.fromAlice, m.toAlice]);
    expect(await handles(t, account, { from_number: ALICE })).toEqual([m.fromAlice]);
    expect(await handles(t, account, { to_number: ALICE })).toEqual([m.toAlice]);
    expect(await handles(t, account, { from_number: line })).toEqual([m.group, m.toBob, m.toAlice]);
    expect(await handles(t, account, { to_number: line })).toEqual([m.fromAlice]);
    expect(await handles(t, account, { sendblue_number: line })).toHaveLength(4);
    expect(await handles(t, account, { worker_id: workerIdOf(line) })).toHaveLength(4);
    expect(await handles(t, account, { worker_id: 'w_00000000' })).toEqual([]);
    expect(await handles(t, account, { group_id: m.groupId })).toEqual([m.group]);
    expect(await handles(t, account, { is_outbound: 'false' })).toEqual([m.fromAlice]);
    expect(await handles(t, account, { is_outbound: 'true' })).toEqual([m.group, m.toBob, m.toAlice]);
    expect(await handles(t, account, { message_type: 'group' })).toEqual([m.group]);
    expect(await handles(t, account, { message_type: 'message', is_outbound: 'true' })).toEqual([m.toBob, m.toAlice]);
    // Contradictions match nothing rather than failing.
    expect(await handles(t, account, { from_number: ALICE, is_outbound: 'true' })).toEqual([]);
    expect(await handles(t, account, { account_email: account.email })).toHaveLength(4);
    expect(await handles(t, account, { account_email: 'someone@else.example' })).toEqual([]);
  });

  it('filters by status and service; statuses textrelay never produces match nothing', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const m = await conversation(t, account);
    setStatus(t, m.toAlice, 'DELIVERED', false);
    setStatus(t, m.toBob, 'SENT', true);
    expect(await handles(t, account, { status: 'DELIVERED' })).toEqual([m.toAlice]);
    expect(await handles(t, account, { status: 'RECEIVED' })).toEqual([m.fromAlice]);
    expect(await handles(t, account, { status: 'DECLINED' })).toEqual([]);
    expect(await handles(t, account, { service: 'SMS' })).toEqual([m.toBob]);
    expect(await handles(t, account, { service: 'iMessage' })).toEqual([m.fromAlice, m.group, m.toAlice]);
    expect(await handles(t, account, { service: 'RCS' })).toEqual([]);
    expect((await list(t, account, { service: 'SMS' })).data[0]).toMatchObject({ service: 'SMS', was_downgraded: true });
  });

  it('filters by created, sent and updated time ranges, ends included', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const m = await conversation(t, account);
    const rows = (await list(t, account)).data;
    const sentAt = (handle: string) => rows.find((row) => row.message_handle === handle).date_sent as string;
    expect(await handles(t, account, { created_at_gte: sentAt(m.toBob) })).toEqual([m.fromAlice, m.group, m.toBob]);
    expect(await handles(t, account, { created_at_lte: sentAt(m.toBob) })).toEqual([m.toBob, m.toAlice]);
    expect(await handles(t, account, { sent_at_gte: sentAt(m.toBob), sent_at_lte: sentAt(m.group) })).toEqual([m.group, m.toBob]);
    const later = Date.parse(sentAt(m.fromAlice)) + 3_600_000;
    setStatus(t, m.toAlice, 'DELIVERED', false, later);
    expect(await handles(t, account, { updated_at_gte: new Date(later).toISOString() })).toEqual([m.toAlice]);
    expect(await handles(t, account, { updated_at_lte: sentAt(m.toBob) })).toEqual([m.toBob]);
  });

  it('orders by created, sent or updated time in either direction, snake-case names too', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const m = await conversation(t, account);
    const newestFirst = [m.fromAlice, m.group, m.toBob, m.toAlice];
    expect(await handles(t, account, { order_direction: 'asc' })).toEqual([...newestFirst].reverse());
    expect(await handles(t, account, { order_by: 'sentAt' })).toEqual(newestFirst);
    expect(await handles(t, account, { order_by: 'created_at', order_direction: 'asc' })).toEqual([...newestFirst].reverse());
    setStatus(t, m.toAlice, 'DELIVERED', false, Date.parse('2030-01-01T00:00:00Z'));
    expect((await handles(t, account, { order_by: 'updatedAt' }))[0]).toBe(m.toAlice);
    expect((await handles(t, account, { order_by: 'updated_at', order_direction: 'asc' })).at(-1)).toBe(m.toAlice);
  });

  it('pages with limit and offset, saying the total and whether more follow', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const m = await conversation(t, account);
    const first = await list(t, account, { limit: 3 });
    expect(first.data.map((row) => row.message_handle)).toEqual([m.fromAlice, m.group, m.toBob]);
    expect(first.pagination).toEqual({ total: 4, limit: 3, offset: 0, hasMore: true });
    const second = await list(t, account, { limit: 3, offset: 3 });
    expect(second.data.map((row) => row.message_handle)).toEqual([m.toAlice]);
    expect(second.pagination).toEqual({ total: 4, limit: 3, offset: 3, hasMore: false });
    const past = await list(t, account, { limit: 3, offset: 10 });
    expect(past.data).toEqual([]);
    expect(past.pagination).toEqual({ total: 4, limit: 3, offset: 10, hasMore: false });
    expect((await list(t, account, { limit: 4 })).pagination).toEqual({ total: 4, limit: 4, offset: 0, hasMore: false });
    expect((await list(t, account, { limit: 1000 })).pagination.limit).toBe(1000);
  });

  it('keeps the total right as messages arrive after it was counted, and after the recount time', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    await conversation(t, account);
    expect((await list(t, account, { limit: 1 })).pagination.total).toBe(4);
    expect((await list(t, account, { limit: 1, is_outbound: 'true' })).pagination.total).toBe(3);
    const response = await t.call('POST', '/api/send-message', account, { number: BOB, content: 'one more' });
    expect(response.status).toBe(202);
    expect((await list(t, account, { limit: 1 })).pagination.total).toBe(5);
    expect((await list(t, account, { limit: 1, is_outbound: 'true' })).pagination.total).toBe(4);
    expect((await list(t, account, { limit: 1, is_outbound: 'false' })).pagination.total).toBe(1);
    t.db.$client.prepare('delete from status_events where message_handle = ?').run(response.body.message_handle);
    t.db.$client.prepare('delete from webhook_deliveries').run();
    t.db.$client.prepare('delete from messages where handle = ?').run(response.body.message_handle);
    t.clock.advance(TOTAL_RECOUNT_MS);
    expect((await list(t, account, { limit: 1 })).pagination.total).toBe(4);
    expect((await list(t, account, { limit: 1, status: 'QUEUED' })).pagination).toMatchObject({ total: 3, hasMore: true });
  });

  it.each([
    [{ limit: 1001 }, 'limit'],
    [{ limit: 0 }, 'limit'],
    [{ offset: -1 }, 'offset'],
    [{ created_at_gte: 'yesterday' }, 'created_at_gte must be an ISO 8601 date'],
    [{ updated_at_lte: '2026-13-45' }, 'updated_at_lte must be an ISO 8601 date'],
    [{ sent_at_gte: '' }, 'sent_at_gte'],
    [{ order_by: 'date' }, 'order_by'],
    [{ order_direction: 'up' }, 'order_direction'],
    [{ status: 'LOST' }, 'status'],
    [{ service: 'fax' }, 'service'],
    [{ message_type: 'location' }, 'message_type'],
    [{ is_outbound: 'yes' }, 'is_outbound'],
    [{ number: '12' }, 'number'],
  ])('answers 400/4000 naming the field for %o', async (params, words) => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const response = await t.call('GET', path(params), account);
    expect(response.status, show(response.body)).toBe(400);
    expect(response.body).toMatchObject({ status: 'ERROR', error_code: 4000 });
    expect(response.body.error_message).toContain(words);
  });

  it("never shows another account's messages", async () => {
    const t = makeTestApp();
    const mine = await t.createAccount();
    const theirs = await t.createAccount();
    await conversation(t, mine);
    const page = await list(t, theirs);
    expect(page.data).toEqual([]);
    expect(page.pagination.total).toBe(0);
    expect(await handles(t, theirs, { number: ALICE })).toEqual([]);
  });
});

describe('GET /api/v2/messages/{id}', () => {
  it('answers one message as a Message row', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const m = await conversation(t, account);
    const response = await t.call('GET', `/api/v2/messages/${m.toBob}`, account);
    expect(response.status, show(response.body)).toBe(200);
    expect(response.body.status).toBe('OK');
    expect(Object.keys(response.body.data).sort()).toEqual(ROW_FIELDS);
    expect(response.body.data).toMatchObject({ message_handle: m.toBob, content: 'hello bob', number: BOB });
  });

  it("answers 404/4040 for an unknown handle or another account's", async () => {
    const t = makeTestApp();
    const mine = await t.createAccount();
    const theirs = await t.createAccount();
    const m = await conversation(t, mine);
    for (const id of [m.toAlice, '00000000-0000-0000-0000-000000000000']) {
      const response = await t.call('GET', `/api/v2/messages/${id}`, theirs);
      expect(response.status, show(response.body)).toBe(404);
      expect(response.body).toMatchObject({ status: 'ERROR', error_code: 4040 });
    }
  });
});
