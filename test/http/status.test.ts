import { describe, expect, it } from 'vitest';
import { makeTestApp, type TestAccount, type TestApp } from '../helpers/app.ts';
import { expectMessageError } from '../helpers/expect.ts';
import { ALICE, BOB, CAROL, MESSAGE_FIELDS, show } from '../helpers/fixtures.ts';

/** GET /api/status?handle=H: the Message object of one of the account's messages. */

async function post(t: TestApp, account: TestAccount, path: string, body: Record<string, unknown>) {
  const response = await t.call('POST', path, account, body);
  expect(response.status, show(response.body)).toBe(202);
  return response.body;
}

function statusPath(handle: string, extra = ''): string {
  return `/api/status?handle=${encodeURIComponent(handle)}${extra}`;
}

describe('GET /api/status', () => {
  it('answers the Message object of a single send, equal to the send response', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const sent = await post(t, account, '/api/send-message', {
      number: ALICE,
      content: 'status me',
      media_url: 'https://cdn.example.com/a.png',
      send_style: 'slam',
      status_callback: 'https://hooks.example.com/s',
    });
    t.clock.advance(5_000);
    const found = await t.call('GET', statusPath(sent.message_handle), account);
    expect(found.status, show(found.body)).toBe(200);
    for (const field of MESSAGE_FIELDS) expect(found.body, `${field} missing: ${show(found.body)}`).toHaveProperty(field);
    expect(found.body, show(found.body)).not.toHaveProperty('history');
    expect(found.body, show(found.body)).toEqual(sent);
    expect(found.body, show(found.body)).toMatchObject({
      accountEmail: account.email,
      content: 'status me',
      is_outbound: true,
      status: 'QUEUED',
      message_handle: sent.message_handle,
      date_sent: '2026-11-23T09:30:00.000Z',
      date_updated: '2026-11-23T09:30:00.000Z',
      number: ALICE,
      to_number: ALICE,
      plan: 'sapphire',
      media_url: 'https://cdn.example.com/a.png',
      message_type: 'message',
      group_id: '',
      send_style: 'slam',
      opted_out: false,
    });
    expect([0, null]).toContain(found.body.error_code);
    expect(account.numbers).toContain(found.body.from_number);
    expect([...found.body.participants].sort()).toEqual([ALICE, found.body.from_number].sort());
  });

  it('answers the Message object of a group send, with arrays for number and to_number', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const sent = await post(t, account, '/api/send-group-message', { numbers: [ALICE, BOB, CAROL], content: 'hi all' });
    const found = await t.call('GET', statusPath(sent.message_handle), account);
    expect(found.status, show(found.body)).toBe(200);
    for (const field of MESSAGE_FIELDS) expect(found.body, `${field} missing: ${show(found.body)}`).toHaveProperty(field);
    expect(found.body, show(found.body)).toEqual(sent);
    expect(found.body, show(found.body)).toMatchObject({ message_type: 'group', group_id: sent.group_id, status: 'QUEUED' });
    expect(found.body.group_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect([...found.body.number].sort(), show(found.body)).toEqual([ALICE, BOB, CAROL]);
    expect([...found.body.to_number].sort(), show(found.body)).toEqual([ALICE, BOB, CAROL]);
    expect([...found.body.numbers].sort(), show(found.body)).toEqual([ALICE, BOB, CAROL]);
    expect([...found.body.to_numbers].sort(), show(found.body)).toEqual([ALICE, BOB, CAROL]);
    expect([...found.body.participants].sort(), show(found.body)).toEqual([ALICE, BOB, CAROL, found.body.from_number].sort());
  });

  it('history=1 adds the history with the QUEUED event (applied, source api)', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const sent = await post(t, account, '/api/send-message', { number: ALICE, content: 'with history' });
    for (const flag of ['1', 'true']) {
      const found = await t.call('GET', statusPath(sent.message_handle, `&history=${flag}`), account);
      expect(found.status, show(found.body)).toBe(200);
      expect(Array.isArray(found.body.history), show(found.body)).toBe(true);
      expect(found.body.history, show(found.body)).toEqual([
        expect.objectContaining({
          status: 'QUEUED',
          applied: true,
          implied: false,
          source: 'api',
          error_code: null,
          received_at: '2026-11-23T09:30:00.000Z',
        }),
      ]);
      const { history: _history, ...rest } = found.body;
      expect(rest, show(found.body)).toEqual(sent);
    }
    for (const flag of ['0', 'false']) {
      const found = await t.call('GET', statusPath(sent.message_handle, `&history=${flag}`), account);
      expect(found.status, show(found.body)).toBe(200);
      expect(found.body, show(found.body)).not.toHaveProperty('history');
    }
  });

  it('history=1 works for group messages too', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const sent = await post(t, account, '/api/send-group-message', { numbers: [ALICE, BOB], content: 'group history' });
    const found = await t.call('GET', statusPath(sent.message_handle, '&history=1'), account);
    expect(found.status, show(found.body)).toBe(200);
    expect(found.body.history, show(found.body)).toEqual([expect.objectContaining({ status: 'QUEUED', applied: true, source: 'api' })]);
  });

  it('a missing or empty handle is 400 4000', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    expectMessageError(await t.call('GET', '/api/status', account), 400, 4000);
    expectMessageError(await t.call('GET', '/api/status?handle=', account), 400, 4000);
    expectMessageError(await t.call('GET', '/api/status?history=1', account), 400, 4000);
  });

  it('an invalid history flag is 400 4000', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const sent = await post(t, account, '/api/send-message', { number: ALICE, content: 'x' });
    expectMessageError(await t.call('GET', statusPath(sent.message_handle, '&history=maybe'), account), 400, 4000);
  });

  it('an unknown handle is 404 4040', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    await post(t, account, '/api/send-message', { number: ALICE, content: 'x' });
    for (const handle of ['00000000-0000-4000-8000-000000000000', 'nope', "' or 1=1 --", '%']) {
      expectMessageError(await t.call('GET', statusPath(handle), account), 404, 4040);
    }
  });

  it('a handle holding a NUL character is refused, as every input holding one', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    expectMessageError(await t.call('GET', statusPath('\u0000'), account), 400, 4000);
  });

  it('another account’s handle is 404 4040, never its message', async () => {
    const t = makeTestApp();
    const a = await t.createAccount();
    const b = await t.createAccount();
    const single = await post(t, a, '/api/send-message', { number: ALICE, content: 'secret of a' });
    const group = await post(t, a, '/api/send-group-message', { numbers: [ALICE, BOB], content: 'group secret of a' });
    for (const handle of [single.message_handle, group.message_handle]) {
      const response = await t.call('GET', statusPath(handle, '&history=1'), b);
      expectMessageError(response, 404, 4040);
      expect(JSON.stringify(response.body)).not.toContain('secret of a');
      // A still sees it.
      const own = await t.call('GET', statusPath(handle), a);
      expect(own.status, show(own.body)).toBe(200);
    }
  });

  it('a handle is matched exactly (no case folding or trimming into another message)', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const sent = await post(t, account, '/api/send-message', { number: ALICE, content: 'x' });
    const handle: string = sent.message_handle;
    expect(handle).toBe(handle.toLowerCase());
    for (const variant of [`${handle}x`, handle.slice(0, -1), `${handle.slice(0, 8)}%`]) {
      expectMessageError(await t.call('GET', statusPath(variant), account), 404, 4040);
    }
  });

  it('needs credentials', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const sent = await post(t, account, '/api/send-message', { number: ALICE, content: 'x' });
    const response = await t.call('GET', statusPath(sent.message_handle), undefined);
    expect(response.status, show(response.body)).toBe(401);
    expect(response.body, show(response.body)).toMatchObject({ status: 'ERROR', error_code: 4010 });
  });
});
