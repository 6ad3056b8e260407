import { describe, expect, it } from 'vitest';
import { accountEvents, accountOutbox, subscribe } from '../helpers/sdk-surface.ts';
import { makeSandboxApp } from './harness.ts';

const ECHO = '+12125550106';
const READER = '+12125550100';
const RECEIVE_WEBHOOK = 'https://hooks.example.com/receive';
const TYPING_WEBHOOK = 'https://hooks.example.com/typing';

describe('555-0106 types before it replies', () => {
  it('queues the typing_indicator webhook and records typing.changed before the echo reply', async () => {
    const t = makeSandboxApp();
    const account = await t.createAccount({ receiveWebhook: RECEIVE_WEBHOOK });
    await subscribe(t, account, 'typing_indicator', TYPING_WEBHOOK);
    const line = account.numbers[0]!;
    await t.sendVia('/api/send-message', account, { number: ECHO, content: 'ping', from_number: line });

    await t.steps();
    expect(await accountOutbox(t, account)).toEqual([]);
    await t.steps();
    const rows = (await accountOutbox(t, account)).map((row) => [row.eventType, row.url]);
    expect(rows).toEqual([
      ['typing.changed', TYPING_WEBHOOK],
      ['message.received', RECEIVE_WEBHOOK],
    ]);
    const typing = JSON.parse((await accountOutbox(t, account))[0]!.payload);
    expect(typing).toEqual({ number: ECHO, from_number: line, is_typing: true, timestamp: expect.any(String) });

    const events = await accountEvents(t, account);
    const typed = events.find((event) => event.type === 'typing.changed');
    expect(typed?.data).toEqual({ number: ECHO, from_number: line, is_typing: true });
    // Whatever else the log holds, nothing about the reply comes before the typing.
    const received = events.find((event) => event.type === 'message.received');
    if (received) expect(received.id).toBeGreaterThan(typed!.id);

    const reply = await t.call('GET', `/accounts/messages?number=${encodeURIComponent(ECHO)}`, account);
    expect(reply.body.messages[0]).toMatchObject({ content: 'echo: ping', is_outbound: false });
  });

  it('in a group, the echo member types before its reply, and nobody else types', async () => {
    const t = makeSandboxApp();
    const account = await t.createAccount({ receiveWebhook: RECEIVE_WEBHOOK });
    await subscribe(t, account, 'typing_indicator', TYPING_WEBHOOK);
    await t.sendVia('/api/send-group-message', account, { numbers: [ECHO, READER], content: 'team' });
    await t.steps(2);
    const rows = await accountOutbox(t, account);
    expect(rows.map((row) => row.eventType)).toEqual(['typing.changed', 'message.received']);
    expect(JSON.parse(rows[0]!.payload)).toMatchObject({ number: ECHO, is_typing: true });
  });

  it('a message to a number that does not echo types nothing', async () => {
    const t = makeSandboxApp();
    const account = await t.createAccount();
    await subscribe(t, account, 'typing_indicator', TYPING_WEBHOOK);
    await t.sendVia('/api/send-message', account, { number: READER, content: 'hi' });
    await t.steps(5);
    expect(await accountOutbox(t, account)).toEqual([]);
    expect((await accountEvents(t, account)).filter((event) => event.type === 'typing.changed')).toEqual([]);
  });
});
