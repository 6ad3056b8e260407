import { afterEach, describe, expect, it } from 'vitest';
import { recordAttempts } from '../../src/services/callback-dispatch.ts';
import { recordStatus } from '../../src/services/record-status.ts';
import { makeTestApp, type TestAccount, type TestApp } from '../helpers/app.ts';
import { ALICE, BOB, CAROL } from '../helpers/fixtures.ts';
import { claimDue, finishedAs } from '../helpers/outbox.ts';
import { inboxClient, loggedIn, textOf } from './client.ts';

let t: TestApp;
afterEach(() => t.db.$client.close());

async function send(account: TestAccount, number: string, content: string): Promise<string> {
  const reply = await t.call('POST', '/api/send-message', account, { number, content });
  expect(reply.status, JSON.stringify(reply.body)).toBe(202);
  return reply.body.message_handle as string;
}

async function sendGroup(account: TestAccount, numbers: string[], content: string): Promise<string> {
  const reply = await t.call('POST', '/api/send-group-message', account, { numbers, content });
  expect(reply.status, JSON.stringify(reply.body)).toBe(202);
  return reply.body.group_id as string;
}

async function inbound(account: TestAccount, number: string, content: string, groupId?: string) {
  const reply = await t.call('POST', '/sandbox/inbound', account, { number, content, group_id: groupId });
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
}

/** The conversation links of the list, in order, with their visible text. */
function conversationLinks(html: string): { href: string; text: string; unread: boolean }[] {
  return [...html.matchAll(/<li( class="unread")?><a href="([^"]+)">([\s\S]*?)<\/a><\/li>/g)].map((match) => ({
    href: match[2]!,
    text: textOf(match[3]!),
    unread: match[1] !== undefined,
  }));
}

describe('conversations page', () => {
  it('lists contacts and groups, unread first with their count, and opening one marks it read', async () => {
    t = makeTestApp();
    const account = await t.createAccount();
    await send(account, ALICE, 'hello Alice');
    t.clock.advance(1000);
    await inbound(account, BOB, 'hi, Bob here');
    t.clock.advance(1000);
    await inbound(account, BOB, 'are you there?');
    t.clock.advance(1000);
    const groupId = await sendGroup(account, [ALICE, CAROL], 'hello group');
    t.clock.advance(1000);
    await send(account, ALICE, 'newest of all');

    const client = await loggedIn(t, account);
    const before = conversationLinks((await client.get('/inbox')).html);
    expect(before.map((link) => [link.href.split('/')[2], link.unread])).toEqual([
      ['contacts', true],
      ['contacts', false],
      ['groups', false],
    ]);
    expect(before[0]!.text).toContain('are you there?');
    expect(before[0]!.text).toMatch(/ 2$/);
    expect(before[1]!.text).toContain('newest of all');
    expect(before[2]!.href).toBe(`/inbox/groups/${groupId}`);
    expect(before[2]!.text).toContain('hello group');

    expect((await client.get(before[0]!.href)).status).toBe(200);
    const after = conversationLinks((await client.get('/inbox')).html);
    expect(after.map((link) => link.unread)).toEqual([false, false, false]);
    expect(after[0]!.text).toContain('newest of all');

    // A new message in a read conversation makes it unread again, even within the same millisecond.
    await inbound(account, BOB, 'one more');
    const again = conversationLinks((await client.get('/inbox')).html);
    expect(again[0]).toMatchObject({ unread: true });
    expect(again[0]!.text).toContain('one more');
  });

  it('a group reply makes the group unread', async () => {
    t = makeTestApp();
    const account = await t.createAccount();
    const groupId = await sendGroup(account, [ALICE, CAROL], 'hello group');
    const client = await loggedIn(t, account);
    await client.get(`/inbox/groups/${groupId}`);
    await inbound(account, CAROL, 'hi all', groupId);
    const links = conversationLinks((await client.get('/inbox')).html);
    expect(links[0]).toMatchObject({ href: `/inbox/groups/${groupId}`, unread: true });
    expect(links[0]!.text).toContain('hi all');
  });
});

describe('conversation page', () => {
  it('shows every message with its full status history, applied or not and why not', async () => {
    t = makeTestApp();
    const account = await t.createAccount();
    const handle = await send(account, ALICE, 'hello Alice');
    await recordStatus(t.deps, { handle, status: 'DELIVERED', source: 'sandbox' });
    await recordStatus(t.deps, { handle, status: 'DELIVERED', source: 'sandbox' });
    await recordStatus(t.deps, { handle, status: 'SENT', source: 'sandbox' });
    await inbound(account, ALICE, 'hello back');

    const client = await loggedIn(t, account);
    const page = await client.get(conversationLinks((await client.get('/inbox')).html)[0]!.href);
    const text = textOf(page.html);
    expect(text).toContain('hello Alice');
    expect(text).toContain('hello back');
    expect(text).toContain('Status history · 4 events');
    const history = textOf(page.html.match(new RegExp(`<details id="history-${handle}"[\\s\\S]*?</details>`))![0]);
    expect(history).toMatch(
      /QUEUED from api applied .*SENT from sandbox applied \(implied by a later status\) .*DELIVERED from sandbox applied · reported 2 times .*SENT from sandbox not applied: stale, already past this status/,
    );
    expect(page.html).toContain('data-status="DELIVERED"');
    expect(page.html).toContain('data-status="RECEIVED"');
  });

  it('in sandbox mode, replies as the end user and as a group member through the composer', async () => {
    t = makeTestApp();
    const account = await t.createAccount();
    await send(account, ALICE, 'hello Alice');
    const groupId = await sendGroup(account, [BOB, CAROL], 'hello group');
    const client = await loggedIn(t, account);
    const contactPath = conversationLinks((await client.get('/inbox')).html).find((link) => link.href.includes('/contacts/'))!.href;

    expect((await client.post(`${contactPath}/reply`, { from: ALICE, content: 'typed in the inbox' })).location).toBe(contactPath);
    const messages = await t.call('GET', `/accounts/messages?number=${encodeURIComponent(ALICE)}`, account);
    expect(messages.body.messages[0]).toMatchObject({ content: 'typed in the inbox', is_outbound: false, from_number: ALICE });

    const groupPath = `/inbox/groups/${groupId}`;
    expect((await client.post(`${groupPath}/reply`, { from: CAROL, content: 'Carol in the group' })).location).toBe(groupPath);
    const page = textOf((await client.get(groupPath)).html);
    expect(page).toContain('Carol in the group');
    expect(page).toMatch(/Reply as .*\(sandbox end user\)/);

    // Someone outside the conversation cannot be made to write in it.
    const refused = await client.post(`${groupPath}/reply`, { from: ALICE, content: 'not a member' });
    expect(refused.location).toMatch(new RegExp(`^${groupPath}\\?error=`));
    expect(refused.location).toBe(`${groupPath}?error=reply-sender`);
    expect(textOf((await client.get(refused.location!)).html)).toContain('Reply as one of the people in this conversation.');
    const empty = await client.post(`${contactPath}/reply`, { from: ALICE, content: '' });
    expect(empty.location).toBe(`${contactPath}?error=reply-empty`);
    expect(textOf((await client.get(empty.location!)).html)).toContain('Write something to send.');
  });

  it('has no composer and no reply route with a real upstream', async () => {
    t = makeTestApp({ transportName: 'upstream' });
    const account = await t.createAccount();
    await send(account, ALICE, 'hello Alice');
    const client = await loggedIn(t, account);
    const path = conversationLinks((await client.get('/inbox')).html)[0]!.href;
    expect((await client.get(path)).html).not.toContain('class="composer"');
    expect((await client.post(`${path}/reply`, { from: ALICE, content: 'x' })).status).toBe(404);
  });

  it('answers 404 for an unknown conversation', async () => {
    t = makeTestApp();
    const client = await loggedIn(t, await t.createAccount());
    const page = await client.get('/inbox/contacts/nope');
    expect(page.status).toBe(404);
    expect(textOf(page.html)).toContain('No such conversation');
  });

  it('escapes what end users write', async () => {
    t = makeTestApp();
    const account = await t.createAccount();
    await inbound(account, ALICE, '<script>alert(1)</script>');
    const client = await loggedIn(t, account);
    const listPage = await client.get('/inbox');
    expect(listPage.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(listPage.headers.get('cache-control')).toBe('no-store');
    const list = listPage.html;
    expect(list).not.toContain('<script>alert(1)</script>');
    expect(list).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    const page = await client.get(conversationLinks(list)[0]!.href);
    expect(page.html).not.toContain('<script>alert(1)</script>');
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
  });
});

describe('accounts see only their own data', () => {
  it("another account's conversations, deliveries and replays stay out of reach", async () => {
    t = makeTestApp();
    const owner = await t.createAccount();
    const stranger = await t.createAccount();
    const groupId = await sendGroup(owner, [ALICE, CAROL], 'private group');
    await t.call('POST', '/accounts/webhooks', owner, { webhooks: ['http://127.0.0.1:9/receive'], type: 'receive' });
    await inbound(owner, BOB, 'private text');
    const ownerClient = await loggedIn(t, owner);
    const ownerLinks = conversationLinks((await ownerClient.get('/inbox')).html);
    const deliveryId = /id="delivery-([^"]+)"/.exec((await ownerClient.get('/inbox/deliveries')).html)![1]!;

    const client = await loggedIn(t, stranger);
    const list = (await client.get('/inbox')).html;
    expect(textOf(list)).toContain('No conversations yet');
    for (const link of ownerLinks) expect((await client.get(link.href)).status, link.href).toBe(404);
    expect((await client.get(`/inbox/groups/${groupId}`)).status).toBe(404);
    expect((await client.post(`/inbox/groups/${groupId}/reply`, { from: CAROL, content: 'x' })).location).toMatch(/\?error=/);
    expect(textOf((await client.get('/inbox/deliveries')).html)).toContain('No deliveries yet');
    const replay = await client.post(`/inbox/deliveries/${deliveryId}/replay`);
    expect(textOf((await client.get(replay.location!)).html)).toContain('There is no such delivery.');
    const ownersDelivery = await t.call('GET', '/accounts/webhooks/deliveries', owner);
    expect(ownersDelivery.body.deliveries[0]).toMatchObject({ id: deliveryId, attempt_count: 0 });
  });
});

describe('webhook deliveries page', () => {
  it('lists deliveries with their attempts and replays one', async () => {
    t = makeTestApp();
    const account = await t.createAccount();
    await t.call('POST', '/accounts/webhooks', account, { webhooks: ['http://127.0.0.1:9/receive'], type: 'receive' });
    await inbound(account, BOB, 'hi');
    const [delivery] = await (await t.call('GET', '/accounts/webhooks/deliveries', account)).body.deliveries;
    const claimed = await claimDue(t.deps, 10);
    await recordAttempts(
      t.deps,
      claimed.map((row) =>
        finishedAs(row, { kind: 'failed' }, { attemptedAt: t.clock.now(), durationMs: 12, statusCode: 500, excerpt: 'receiver broke' }),
      ),
    );

    const client = await loggedIn(t, account);
    const page = textOf((await client.get('/inbox/deliveries')).html);
    expect(page).toMatch(/failed message\.received .*http:\/\/127\.0\.0\.1:9\/receive/);
    expect(page).toContain('1 attempt · last answer 500');
    expect(page).toContain('receiver broke');

    const replay = await client.post(`/inbox/deliveries/${delivery.id}/replay`);
    expect(replay.status).toBe(303);
    const after = textOf((await client.get(replay.location!)).html);
    expect(replay.location).toBe('/inbox/deliveries?notice=replayed');
    expect(after).toContain('The delivery is queued again, under the same webhook-id.');
    expect(after).toMatch(/pending message\.received/);
  });
});

describe('messages after a form post', () => {
  it('shows only the sentences of known codes: text in the address is never rendered', async () => {
    t = makeTestApp();
    const account = await t.createAccount();
    await send(account, ALICE, 'hello Alice');
    const client = await loggedIn(t, account);
    const contactPath = conversationLinks((await client.get('/inbox')).html)[0]!.href;
    const planted = 'Your session expired: re-enter your secret at https://evil.example/inbox';

    for (const path of [`/inbox/deliveries?notice=${encodeURIComponent(planted)}`, `${contactPath}?error=${encodeURIComponent(planted)}`]) {
      const page = await client.get(path);
      expect(page.status).toBe(200);
      expect(page.html).not.toContain('evil.example');
      expect(page.html).not.toContain('re-enter your secret');
      expect(page.html).not.toMatch(/class="notice/);
    }
    for (const path of ['/inbox/deliveries?notice=toString', `${contactPath}?error=__proto__`, `${contactPath}?error=replayed`]) {
      expect((await client.get(path)).html, path).not.toMatch(/class="notice/);
    }

    expect(textOf((await client.get('/inbox/deliveries?notice=delivery-busy')).html)).toContain(
      'That delivery is being attempted right now; replay it once the attempt has finished.',
    );
    expect(textOf((await client.get(`${contactPath}?error=reply-too-long`)).html)).toContain(
      'A reply must be shorter than 18996 characters.',
    );
  });
});

describe('login page', () => {
  it('renders for a stranger', async () => {
    t = makeTestApp();
    const page = await inboxClient(t).get('/inbox/login');
    expect(page.status).toBe(200);
    expect(page.html).toContain('name="key_id"');
    expect(page.html).toContain('type="password"');
  });
});
