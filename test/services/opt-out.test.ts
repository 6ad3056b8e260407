import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { webhookDeliveries } from '../../src/db/schema.ts';
import { OPT_IN_WORDS, OPT_OUT_WORDS, optOutIntent } from '../../src/domain/opt-out.ts';
import { refuseIfOptedOut } from '../../src/services/contacts.ts';
import { receiveFromTransport } from '../../src/services/receive-inbound.ts';
import { makeTestApp, type TestAccount, type TestApp } from '../helpers/app.ts';
import { accountRow } from '../helpers/delivery.ts';
import { ALICE, BOB, show } from '../helpers/fixtures.ts';
import { payloadsFor } from '../helpers/outbox.ts';

/** STOP and START from the end user, through the sandbox's inbound route, and what they do to sends. */

const RECEIVE_WEBHOOK = 'https://hooks.example.com/receive';

function inbound(t: TestApp, account: TestAccount, content: string, number = ALICE) {
  return t.call('POST', '/sandbox/inbound', account, { number, content });
}

async function optOutOf(t: TestApp, account: TestAccount, number = ALICE): Promise<boolean> {
  const reply = await t.call('GET', `/api/v2/contacts/${number}`, account);
  expect(reply.status, show(reply.body)).toBe(200);
  return reply.body.contact.opt_out;
}

describe('optOutIntent', () => {
  it('knows the whole trimmed message, in any case, and nothing else', () => {
    expect(OPT_OUT_WORDS).toEqual(['STOP', 'STOPALL', 'UNSUBSCRIBE', 'CANCEL', 'END', 'QUIT']);
    expect(OPT_IN_WORDS).toEqual(['START', 'UNSTOP']);
    for (const word of ['STOP', ' stop\n', 'StopAll', 'unsubscribe', 'Cancel', 'end', 'QUIT '])
      expect(optOutIntent(word), word).toBe('opt_out');
    for (const word of ['start', ' UNSTOP ']) expect(optOutIntent(word), word).toBe('opt_in');
    for (const text of ['stop it', 'please STOP', 'STOP.', '', 'the end', 'startup']) expect(optOutIntent(text), text).toBeNull();
  });
});

describe('STOP and START from the end user', () => {
  it('STOP opts the sender out, marks the message and its receive webhook, and refuses later sends with "opted out"', async () => {
    const t = makeTestApp();
    const account = await t.createAccount({ receiveWebhook: RECEIVE_WEBHOOK });
    const stop = await inbound(t, account, ' Stop ');
    expect(stop.status, show(stop.body)).toBe(200);
    expect(await optOutOf(t, account)).toBe(true);
    expect(await payloadsFor(t, stop.body.message_handle)).toEqual([expect.objectContaining({ content: ' Stop ', opted_out: true })]);
    expect((await t.store.messages.findByHandle((await accountRow(t, account)).id, stop.body.message_handle))?.optedOut).toBe(true);

    const refused = await t.call('POST', '/api/send-message', account, { number: ALICE, content: 'one more?' });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ status: 'ERROR', error_code: 4000 });
    expect(refused.body.error_message).toContain('opted out');
    await expect(refuseIfOptedOut(t.deps, (await accountRow(t, account)).id, ALICE)).rejects.toThrow(/opted out/);

    const start = await inbound(t, account, 'START');
    expect(await optOutOf(t, account)).toBe(false);
    expect((await payloadsFor(t, start.body.message_handle))[0].opted_out).toBe(false);
    expect((await t.call('POST', '/api/send-message', account, { number: ALICE, content: 'welcome back' })).status).toBe(202);
  });

  it('an ordinary message carries opted_out false and changes nothing; STOP from an unknown number creates its contact', async () => {
    const t = makeTestApp();
    const account = await t.createAccount({ receiveWebhook: RECEIVE_WEBHOOK });
    const hello = await inbound(t, account, 'stop by later?');
    expect((await payloadsFor(t, hello.body.message_handle))[0].opted_out).toBe(false);
    expect(await optOutOf(t, account)).toBe(false);

    await t.store.webhookSubscriptions.add({
      accountId: (await accountRow(t, account)).id,
      type: 'contact_created',
      url: 'https://hooks.example.com/contacts',
      secret: null,
      sendblueNumbers: null,
      givenAsObject: false,
      createdAt: t.clock.now(),
    });
    await inbound(t, account, 'unsubscribe', BOB);
    expect(await optOutOf(t, account, BOB)).toBe(true);
    const announced = t.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.eventType, 'contact.created')).all();
    expect(announced.map((row) => JSON.parse(row.payload))).toMatchObject([{ phone: BOB, opt_out: true }]);
  });

  it('holds for messages the upstream transport delivers (relay mode) too', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const inbound = { from: ALICE, mediaUrl: '', service: 'iMessage', source: 'upstream', toNumber: account.numbers[0]! } as const;
    await receiveFromTransport(t.deps, { ...inbound, content: 'cancel', transportHandle: 'up-1' });
    expect(await optOutOf(t, account)).toBe(true);
    await receiveFromTransport(t.deps, { ...inbound, content: 'Unstop', transportHandle: 'up-2' });
    expect(await optOutOf(t, account)).toBe(false);
  });

  it('a group send with an opted-out member is refused and queues nothing', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const group = await t.call('POST', '/api/send-group-message', account, { numbers: [ALICE, BOB], content: 'hi all' });
    expect(group.status).toBe(202);
    await inbound(t, account, 'QUIT', BOB);
    const refused = await t.call('POST', '/api/send-group-message', account, { group_id: group.body.group_id, content: 'again' });
    expect(refused.status).toBe(400);
    expect(refused.body.error_message).toContain('opted out');
    const listed = await t.call('GET', '/accounts/messages?is_outbound=true', account);
    expect(listed.body.messages).toHaveLength(1);
  });
});
