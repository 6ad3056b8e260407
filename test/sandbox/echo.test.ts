import { describe, expect, it } from 'vitest';
import type { TestAccount } from '../helpers/app.ts';
import { CALLBACK_URL } from '../helpers/delivery.ts';
import { show } from '../helpers/fixtures.ts';
import { callbackStatuses, outboxFor, payloadsFor } from '../helpers/outbox.ts';
import { makeSandboxApp, type SandboxApp } from './harness.ts';

const ECHO = '+12125550106';
const OTHER_ECHO = '+13125550106';
const READER = '+12125550100';
const RECEIVE_WEBHOOK = 'https://hooks.example.com/receive';

async function listed(t: SandboxApp, account: TestAccount, query: string): Promise<any[]> {
  const reply = await t.call('GET', `/accounts/messages?${query}`, account);
  expect(reply.status, show(reply.body)).toBe(200);
  return reply.body.messages;
}

describe('555-0106 replies after DELIVERED', () => {
  it('one-to-one: one echo from that number, in its conversation, with a receive webhook row', async () => {
    const t = makeSandboxApp();
    const account = await t.createAccount({ receiveWebhook: RECEIVE_WEBHOOK });
    const sent = await t.sendVia('/api/send-message', account, { number: ECHO, content: 'ping', status_callback: CALLBACK_URL });

    await t.steps();
    expect(await listed(t, account, `number=${encodeURIComponent(ECHO)}`)).toHaveLength(1);

    await t.steps();
    const conversation = await listed(t, account, `number=${encodeURIComponent(ECHO)}`);
    expect(
      conversation.map((m) => [m.is_outbound, m.status, m.content]),
      show(conversation),
    ).toEqual([
      [false, 'RECEIVED', 'echo: ping'],
      [true, 'DELIVERED', 'ping'],
    ]);
    const [echo, original] = conversation;
    // The reply comes from the person, to the line the message went out on.
    expect(echo).toMatchObject({ from_number: ECHO, number: ECHO, to_number: original.from_number, message_type: 'message', group_id: '' });

    const contacts = await t.call('GET', '/accounts/contacts', account);
    const contact = contacts.body.find((c: any) => c.phone === ECHO);
    expect(contact, show(contacts.body)).toMatchObject({ previewText: 'echo: ping', is_unread: true, last_date: echo.date });
    const byCid = await listed(t, account, `cid=${contact.cid}`);
    expect(byCid.map((m) => m.message_handle)).toEqual([echo.message_handle, sent.message_handle]);

    expect((await outboxFor(t, echo.message_handle)).map((row) => [row.eventType, row.url])).toEqual([
      ['message.received', RECEIVE_WEBHOOK],
    ]);
    expect((await payloadsFor(t, echo.message_handle))[0]).toMatchObject({
      content: 'echo: ping',
      is_outbound: false,
      status: 'RECEIVED',
      from_number: ECHO,
      to_number: original.from_number,
      message_type: 'message',
      group_id: '',
      service: 'iMessage',
    });

    // The rest of the timeline is the default one, and the reply is never repeated.
    await t.steps(5);
    expect(await callbackStatuses(t, sent.message_handle)).toEqual(['QUEUED', 'SENT', 'DELIVERED', 'READ']);
    expect(await listed(t, account, 'is_outbound=false')).toHaveLength(1);
  });

  it('in a group: each 555-0106 member replies with our group_id, listed with the send', async () => {
    const t = makeSandboxApp();
    const account = await t.createAccount({ receiveWebhook: RECEIVE_WEBHOOK });
    const sent = await t.sendVia('/api/send-group-message', account, { numbers: [READER, ECHO, OTHER_ECHO], content: 'team' });
    await t.steps(2);

    const group = await listed(t, account, `group_id=${sent.group_id}`);
    const replies = group.filter((m) => !m.is_outbound);
    expect(replies.map((m) => m.from_number).sort(), show(group)).toEqual([ECHO, OTHER_ECHO].sort());
    for (const reply of replies) {
      expect(reply).toMatchObject({
        content: 'echo: team',
        status: 'RECEIVED',
        message_type: 'group',
        group_id: sent.group_id,
        to_number: sent.from_number,
      });
      const [payload] = await payloadsFor(t, reply.message_handle);
      expect(payload, show(payload)).toMatchObject({ message_type: 'group', group_id: sent.group_id, number: reply.from_number });
      expect([...payload.participants].sort()).toEqual([READER, ECHO, OTHER_ECHO, sent.from_number].sort());
    }
    expect(group.filter((m) => m.is_outbound).map((m) => m.message_handle)).toEqual([sent.message_handle]);

    // A member's own listing shows the group conversation too.
    expect((await listed(t, account, `number=${encodeURIComponent(ECHO)}`)).length).toBe(3);
  });

  it('a group that never reaches DELIVERED gets no reply', async () => {
    const t = makeSandboxApp();
    const account = await t.createAccount();
    const sent = await t.sendVia('/api/send-group-message', account, { numbers: [ECHO, '+12125550102'], content: 'team' });
    await t.steps(5);
    expect((await t.statusOf(account, sent.message_handle)).status).toBe('SENT');
    expect(await listed(t, account, 'is_outbound=false')).toEqual([]);
  });
});
