import { describe, expect, it } from 'vitest';
import { makeTestApp, type TestAccount, type TestApp } from '../helpers/app.ts';
import { ALICE, BOB, SEND_STYLES, show } from '../helpers/fixtures.ts';

/** The SDK's send fields beyond the contract: reply_to, seat_id, send_style, app_card, and MessageResponse. */

async function send(t: TestApp, account: TestAccount, body: Record<string, unknown>) {
  const response = await t.call('POST', '/api/send-message', account, body);
  expect(response.status, show(response.body)).toBe(202);
  return response.body;
}

describe('send extras', () => {
  it('stores reply_to and seat_id, and echoes them on the send, /api/status and the v2 row', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const first = await send(t, account, { number: ALICE, content: 'question?' });
    const reply = await send(t, account, {
      number: ALICE,
      content: 'follow-up',
      reply_to: { message_handle: first.message_handle, part_index: 1 },
      seat_id: 'seat-7',
    });
    expect(reply).toMatchObject({
      reply_to: { message_handle: first.message_handle, part_index: 1 },
      seat_id: 'seat-7',
      sender_email: null,
      account_email: account.email,
      is_outbound: true,
      message_type: 'message',
      status: 'QUEUED',
    });
    expect(reply.date_created).toBe(reply.date_sent);
    const status = await t.call('GET', `/api/status?handle=${reply.message_handle}`, account);
    expect(status.body).toMatchObject({ reply_to: { message_handle: first.message_handle, part_index: 1 }, seat_id: 'seat-7' });
    const row = await t.call('GET', `/api/v2/messages/${reply.message_handle}`, account);
    expect(row.body.data).toMatchObject({
      reply_to: { message_handle: first.message_handle, part_index: 1 },
      thread_originator: { message_handle: first.message_handle },
      seat_id: 'seat-7',
    });
    expect(first).toMatchObject({ reply_to: null, seat_id: null, sender_email: null });
  });

  it('accepts reply_to without part_index, on group sends too', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const first = await send(t, account, { number: ALICE, content: 'question?' });
    const group = await t.call('POST', '/api/send-group-message', account, {
      numbers: [ALICE, BOB],
      content: 'to both',
      reply_to: { message_handle: first.message_handle },
      seat_id: 's',
    });
    expect(group.status, show(group.body)).toBe(202);
    expect(group.body).toMatchObject({ reply_to: { message_handle: first.message_handle }, seat_id: 's', message_type: 'group' });
  });

  it("refuses reply_to naming another account's or an unknown message with 400, sending nothing", async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const other = await t.createAccount();
    const theirs = await send(t, other, { number: ALICE, content: 'theirs' });
    for (const handle of [theirs.message_handle, 'no-such-handle']) {
      const response = await t.call('POST', '/api/send-message', account, {
        number: ALICE,
        content: 'x',
        reply_to: { message_handle: handle },
      });
      expect(response.status, show(response.body)).toBe(400);
      expect(response.body.error_code).toBe(4000);
      expect(response.body.error_message).toContain('reply_to.message_handle');
    }
    expect((await t.call('GET', '/api/v2/messages', account)).body.data).toEqual([]);
  });

  it.each([
    [{ reply_to: 'abc' }, 'reply_to must be an object'],
    [{ reply_to: {} }, 'reply_to.message_handle is required'],
    [{ reply_to: { message_handle: 'h', part_index: -1 } }, 'reply_to.part_index must be a whole number, 0 or more'],
    [{ seat_id: 7 }, 'seat_id must be text'],
    [{ send_style: 'sparkles' }, 'send_style must be one of: celebration'],
  ])('refuses %o with 400 naming the field', async (extra, words) => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const response = await t.call('POST', '/api/send-message', account, { number: ALICE, content: 'x', ...extra });
    expect(response.status, show(response.body)).toBe(400);
    expect(response.body.error_message).toContain(words);
  });

  it.each(SEND_STYLES)('accepts send_style %s and shows it on the v2 row', async (style) => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const sent = await send(t, account, { number: ALICE, content: 'x', send_style: style });
    expect(sent.send_style).toBe(style);
    expect((await t.call('GET', `/api/v2/messages/${sent.message_handle}`, account)).body.data.send_style).toBe(style);
  });
});
