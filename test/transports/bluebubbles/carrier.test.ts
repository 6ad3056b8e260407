import { afterEach, describe, expect, it } from 'vitest';
import { normalisePhoneSpelling } from '../../../src/domain/phone.ts';
import { createLogger } from '../../../src/logger.ts';
import { StartupError } from '../../../src/startup-error.ts';
import { makeTestApp, type TestAccount, type TestApp } from '../../helpers/app.ts';
import {
  type BlueBubblesRig,
  blueBubblesAccount,
  sendThroughRig,
  startBlueBubblesCarrier,
  startBlueBubblesRig,
  untilStatus,
} from '../../helpers/bluebubbles.ts';
import { sendGroup } from '../../helpers/delivery.ts';
import { startFakeBlueBubbles } from '../../helpers/fake-bluebubbles/server.ts';
import { ALICE, BOB, CAROL } from '../../helpers/fixtures.ts';
import { eventually } from '../../helpers/live.ts';
import { callbackStatuses } from '../../helpers/outbox.ts';
import { seededRandom } from '../../helpers/seeded-random.ts';

const rigs: BlueBubblesRig[] = [];
afterEach(async () => {
  for (const rig of rigs.splice(0)) await rig.close();
});

async function setup(
  options: Parameters<typeof startBlueBubblesRig>[1] = {},
  log?: ReturnType<typeof createLogger>,
): Promise<{ t: TestApp; account: TestAccount; rig: BlueBubblesRig }> {
  const world = await startBlueBubblesCarrier({ ...options, log });
  rigs.push(world.rig);
  return world;
}

async function statusOf(t: TestApp, handle: string) {
  return t.store.messages.findByAnyHandle(handle);
}

const sendVia = sendThroughRig;
const until = untilStatus;

describe('BlueBubbles start-up', () => {
  it('registers one webhook at a secret URL, the same one after a restart', async () => {
    const { rig } = await setup();
    expect(rig.fake.world.webhooks).toHaveLength(1);
    const [webhook] = rig.fake.world.webhooks;
    expect(webhook!.url).toMatch(new RegExp(`^${rig.publicUrl}/webhooks/carriers/bluebubbles/[A-Za-z0-9_-]{40,}$`));
    expect(webhook!.events).toEqual(expect.arrayContaining(['new-message', 'updated-message', 'message-send-error']));
    await rig.restart();
    expect(rig.fake.world.webhooks.map((hook) => hook.url)).toEqual([webhook!.url]);
  });

  it('logs the webhook registered at info once, and at debug on the passes that change nothing', async () => {
    const lines: string[] = [];
    const { rig } = await setup({}, createLogger('info', { write: (line: string) => lines.push(line) }));
    await rig.restart();
    expect(lines.filter((line) => line.includes('BlueBubbles webhook registered'))).toHaveLength(1);
  });

  it('logs an unreachable Mac at start in one line, with the reason and no stack trace', async () => {
    const lines: string[] = [];
    const fake = await startFakeBlueBubbles();
    await fake.stop();
    await setup({ fake }, createLogger('info', { write: (line: string) => lines.push(line) }));
    const warning = lines.find((line) => line.includes('BlueBubbles is not reachable yet'));
    expect(JSON.parse(warning!)).toMatchObject({ level: 40, reason: expect.stringMatching(/ECONNREFUSED/) });
    expect(warning).not.toMatch(/"stack"|"err"/);
  });

  it('removes a webhook of ours left with another secret, and keeps another textrelay’s, with a warning', async () => {
    const lines: string[] = [];
    const { rig } = await setup({}, createLogger('info', { write: (line: string) => lines.push(line) }));
    const theirs = 'https://other-textrelay.example/webhooks/carriers/bluebubbles/their-secret';
    rig.fake.world.newWebhook(`${rig.publicUrl}/webhooks/carriers/bluebubbles/old-secret`, ['*']);
    rig.fake.world.newWebhook(theirs, ['new-message']);
    rig.fake.world.newWebhook('https://other-client.example/hook', ['*']);
    await rig.restart();
    expect(rig.fake.world.webhooks.map((hook) => hook.url).sort()).toEqual(
      [
        rig.fake.world.webhooks.find((h) => h.url.startsWith(rig.publicUrl) && !h.url.endsWith('old-secret'))!.url,
        'https://other-client.example/hook',
        theirs,
      ].sort(),
    );
    const warning = lines.find((line) => line.includes('other-textrelay.example'));
    expect(warning).toContain('TEXTRELAY_BLUEBUBBLES_TAKE_OVER');
    expect(warning).not.toContain('their-secret');
  });

  it('takes another textrelay’s webhook over when TEXTRELAY_BLUEBUBBLES_TAKE_OVER says so', async () => {
    const fake = await startFakeBlueBubbles();
    fake.world.newWebhook('https://other-textrelay.example/webhooks/carriers/bluebubbles/their-secret', ['new-message']);
    const { rig } = await setup({ fake, env: { TEXTRELAY_BLUEBUBBLES_TAKE_OVER: '1' } });
    expect(rig.fake.world.webhooks.map((hook) => hook.url)).toEqual([
      expect.stringMatching(new RegExp(`^${rig.publicUrl}/webhooks/carriers/bluebubbles/`)),
    ]);
  });

  it('warns when the BlueBubbles line is not an address of the Mac’s iMessage account', async () => {
    for (const privateApi of [true, false]) {
      const lines: string[] = [];
      const fake = await startFakeBlueBubbles();
      fake.settings.privateApi = privateApi;
      fake.settings.aliases = ['me@icloud.com', '+16175550100'];
      await setup({ fake }, createLogger('info', { write: (line: string) => lines.push(line) }));
      expect(lines.find((line) => line.includes('+16175550199') && line.includes('me@icloud.com'))).toBeDefined();
    }
    const quiet: string[] = [];
    await setup({}, createLogger('info', { write: (line: string) => quiet.push(line) }));
    expect(quiet.filter((line) => line.includes('"level":40') && line.includes('iMessage'))).toEqual([]);
  });

  it('refuses an ingest call without the secret and records nothing', async () => {
    const { t, rig } = await setup();
    const message = {
      guid: 'FORGED',
      text: 'forged',
      isFromMe: false,
      handle: { address: ALICE, service: 'iMessage' },
      chats: [{ guid: `iMessage;-;${ALICE}` }],
    };
    for (const path of ['', '/wrong-secret']) {
      const answer = await fetch(`${rig.publicUrl}/webhooks/carriers/bluebubbles${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'new-message', data: message }),
      });
      expect(answer.status).toBe(404);
    }
    expect(await statusOf(t, 'FORGED')).toBeUndefined();
  });

  it('stops the start on a wrong password with one line naming it', async () => {
    const fake = await startFakeBlueBubbles();
    const t = makeTestApp({ transportName: 'bluebubbles' });
    await blueBubblesAccount(t);
    const rig = await startBlueBubblesRig(t, { fake, password: 'not-the-password' });
    rigs.push(rig);
    const failure = await rig.carrier.start().then(
      () => undefined,
      (error: Error) => error,
    );
    expect(failure).toBeInstanceOf(StartupError);
    expect(failure!.message).toContain('TEXTRELAY_BLUEBUBBLES_PASSWORD');
    expect(failure!.message).not.toContain('not-the-password');
  });
});

describe('BlueBubbles sends and statuses', () => {
  it('creates the chat for a new person, then walks SENT, DELIVERED, READ once each despite echoes and repeats', async () => {
    const { t, account, rig } = await setup();
    const handle = await sendVia(t, account, rig, { content: 'first contact' });
    const sent = await until(t, handle, 'SENT');
    expect(rig.fake.sends.map((s) => s.path)).toEqual(['chat/new']);
    expect(rig.fake.sends[0]!.body).toMatchObject({ addresses: [ALICE], message: 'first contact', tempGuid: handle });
    const guid = sent.transportHandle!;
    expect(rig.fake.world.messages.get(guid)?.text).toBe('first contact');
    await rig.fake.world.settled();
    rig.fake.world.read(guid);
    rig.fake.world.deliver(guid);
    rig.fake.world.echo(rig.fake.world.messages.get(guid)!, handle);
    await rig.fake.world.settled();
    const read = await until(t, handle, 'READ');
    expect(read.wasDowngraded).toBe(false);
    expect(await callbackStatuses(t, handle)).toEqual(['QUEUED', 'SENT', 'DELIVERED', 'READ']);
  });

  it('sends into the existing chat, also when macOS 26 names it any;-;', async () => {
    const { t, account, rig } = await setup();
    rig.fake.world.tahoe = true;
    rig.fake.world.ensureChat(`any;-;${ALICE}`, [ALICE], 'iMessage');
    const handle = await sendVia(t, account, rig, { content: 'in the old chat', sendStyle: 'slam' });
    await until(t, handle, 'SENT');
    expect(rig.fake.sends).toHaveLength(1);
    expect(rig.fake.sends[0]).toMatchObject({
      path: 'message/text',
      body: { chatGuid: `any;-;${ALICE}`, effectId: 'com.apple.MobileSMS.expressivesend.impact', method: 'private-api' },
    });
  });

  it('sends as SMS to someone without iMessage, marked downgraded', async () => {
    const { t, account, rig } = await setup();
    rig.fake.world.smsOnly.add(ALICE);
    const handle = await sendVia(t, account, rig, { content: 'sms please' });
    const sent = await until(t, handle, 'SENT');
    expect(rig.fake.sends[0]).toMatchObject({ path: 'chat/new', body: { service: 'SMS' } });
    expect(sent.wasDowngraded).toBe(true);
  });

  it('answers lookups.lookupNumber from the same iMessage check', async () => {
    const { t, account, rig } = await setup();
    rig.fake.world.smsOnly.add(ALICE);
    const lookup = async (number: string) =>
      (await t.call('GET', `/api/evaluate-service?number=${encodeURIComponent(number)}`, account)).body;
    expect(await lookup(ALICE)).toEqual({ number: ALICE, service: 'SMS' });
    // The sandbox's SMS test number: BlueBubbles, not the sandbox, answers.
    expect(await lookup(CAROL)).toEqual({ number: CAROL, service: 'iMessage' });
  });

  it('fails with the carrier code on an error row, and on message-send-error later', async () => {
    const { t, account, rig } = await setup();
    rig.fake.faults.push({ kind: 'error', code: 22 });
    const first = await sendVia(t, account, rig, { content: 'to nowhere' });
    const failed = await until(t, first, 'ERROR');
    expect(failed).toMatchObject({ errorCode: 10001, errorMessage: 'BlueBubbles error 22' });
    const second = await sendVia(t, account, rig, { content: 'fails later' });
    const sent = await until(t, second, 'SENT');
    await rig.fake.world.settled();
    rig.fake.world.failLater(sent.transportHandle!, 4);
    expect(await until(t, second, 'ERROR')).toMatchObject({ errorMessage: 'BlueBubbles error 4' });
  });

  it('reads the chat back after a 500 with data null and does not send again', async () => {
    const { t, account, rig } = await setup();
    rig.fake.world.ensureChat(`iMessage;-;${ALICE}`, [ALICE], 'iMessage');
    rig.fake.control.autoEcho = false;
    rig.fake.faults.push({ kind: 'unknown', delayMs: 50, sent: true });
    const handle = await sendVia(t, account, rig, { content: 'did it go?' });
    const sent = await until(t, handle, 'SENT');
    expect(rig.fake.sends).toHaveLength(1);
    expect(rig.fake.world.messages.get(sent.transportHandle!)?.text).toBe('did it go?');
  });

  it('keeps a message QUEUED while the Mac is down, retries, then fails with a clear message', async () => {
    const { t, account, rig } = await setup({ retrySchedule: '0.1,0.1' });
    rig.fake.faults.push({ kind: 'serverError' }, { kind: 'serverError' }, { kind: 'serverError' });
    const handle = await sendVia(t, account, rig, { content: 'never' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await statusOf(t, handle))?.status).toBe('QUEUED');
    const failed = await until(t, handle, 'ERROR');
    expect(failed.errorMessage).toMatch(
      /^BlueBubbles did not take the message: .*An unhandled error has occurred!.*\(gave up after 3 attempts\)$/,
    );
    expect(rig.carrier.health().lastError).toContain('An unhandled error has occurred!');
  });
});

describe('BlueBubbles password', () => {
  it('never reaches a log line, whatever fails', async () => {
    const lines: string[] = [];
    const { t, account, rig } = await setup(
      { retrySchedule: '0.02' },
      createLogger('debug', { write: (line: string) => lines.push(line) }),
    );
    rig.fake.faults.push({ kind: 'proxyError' });
    const handle = await sendVia(t, account, rig, { content: 'one' });
    await until(t, handle, 'SENT');
    await rig.fake.stop();
    const other = await sendVia(t, account, rig, { content: 'two' });
    await until(t, other, 'ERROR');
    await rig.carrier.readBack().catch(() => undefined);
    await rig.fake.restart();
    expect(lines.length).toBeGreaterThan(3);
    expect(lines.join('\n')).not.toContain(rig.fake.settings.password);
  });
});

describe('BlueBubbles error messages', () => {
  it('never show the Mac’s address to the tenant', async () => {
    const { t, account, rig } = await setup({ retrySchedule: '0.02' });
    await rig.fake.stop();
    const handle = await sendVia(t, account, rig, { content: 'while the Mac is away' });
    const failed = await until(t, handle, 'ERROR');
    const { host } = new URL(rig.fake.url);
    expect(failed.errorMessage).toMatch(/^BlueBubbles did not take the message: .*ECONNREFUSED/);
    for (const shown of [failed.errorMessage, rig.carrier.health().lastError ?? '']) {
      expect(shown).not.toContain(host);
      expect(shown).not.toContain('127.0.0.1');
    }
    await rig.fake.restart();
  });
});

describe('BlueBubbles inbound', () => {
  it('relays a person’s message once, skips tapbacks and keeps e-mail senders', async () => {
    const { t, account, rig } = await setup();
    const message = rig.fake.world.receive({ from: ALICE, text: 'hello textrelay' });
    rig.fake.world.push('new-message', rig.fake.world.view(message));
    rig.fake.world.push('new-message', {
      ...rig.fake.world.view(message),
      guid: 'TAPBACK',
      associatedMessageGuid: message.guid,
      text: 'Loved',
    });
    const mail = rig.fake.world.receive({ from: 'ann@example.com', text: 'from my mac' });
    await rig.fake.world.settled();
    const inbound = await eventually('inbound', async () => statusOf(t, message.guid), 5_000);
    expect(inbound).toMatchObject({
      status: 'RECEIVED',
      number: ALICE,
      content: 'hello textrelay',
      lineNumber: account.numbers[0],
      isOutbound: false,
    });
    expect(await statusOf(t, 'TAPBACK')).toBeUndefined();
    expect(await eventually('mail', async () => statusOf(t, mail.guid), 5_000)).toMatchObject({ number: 'ann@example.com' });
  });

  it('downloads an attachment and serves it at textrelay’s own media URL', async () => {
    const { t, rig } = await setup();
    const bytes = Buffer.from('89504e470d0a1a0a0000', 'hex');
    const message = rig.fake.world.receive({
      from: ALICE,
      text: '\uFFFC',
      attachments: [{ guid: 'AT-1', mimeType: 'image/png', transferName: 'cat.png', totalBytes: bytes.length, bytes }],
    });
    const inbound = await eventually('inbound', async () => statusOf(t, message.guid), 5_000);
    expect(inbound.mediaUrl).toMatch(new RegExp(`^${rig.publicUrl}/media/`));
    const served = await t.app.request(new URL(inbound.mediaUrl).pathname);
    expect(Buffer.from(await served.arrayBuffer())).toEqual(bytes);
  });

  it('delivers each further attachment as a message of its own, after the text, once', async () => {
    const { t, account, rig } = await setup();
    const picture = (guid: string, byte: string) => {
      const bytes = Buffer.from(`89504e470d0a1a0a${byte}`, 'hex');
      return { guid, mimeType: 'image/png', transferName: `${guid}.png`, totalBytes: bytes.length, bytes };
    };
    const message = rig.fake.world.receive({ from: ALICE, text: 'two cats', attachments: [picture('AT-1', '01'), picture('AT-2', '02')] });
    const second = await eventually('second', async () => statusOf(t, `${message.guid}/1`), 5_000);
    const first = await statusOf(t, message.guid);
    expect([first?.content, second.content]).toEqual(['two cats', '']);
    const served = await t.app.request(new URL(second.mediaUrl).pathname);
    expect(Buffer.from(await served.arrayBuffer())).toEqual(picture('AT-2', '02').bytes);
    rig.fake.world.push('new-message', rig.fake.world.view(message));
    await rig.fake.world.settled();
    const listed = await t.call('GET', '/api/v2/messages', account);
    expect(listed.body.data.filter((m: { from_number: string }) => m.from_number === ALICE)).toHaveLength(2);
  });

  it('reads back a message that arrived while webhooks were lost, exactly once', async () => {
    const { t, account, rig } = await setup();
    rig.fake.world.dropping = true;
    const missed = rig.fake.world.receive({ from: ALICE, text: 'while you were out' });
    await rig.fake.world.settled();
    expect(await statusOf(t, missed.guid)).toBeUndefined();
    await rig.restart();
    rig.fake.world.dropping = false;
    await rig.carrier.readBack();
    rig.fake.world.push('new-message', rig.fake.world.view(missed));
    await rig.fake.world.settled();
    const listed = await t.call('GET', '/api/v2/messages', account);
    expect(listed.body.data.filter((m: { content: string }) => m.content === 'while you were out')).toHaveLength(1);
  });
});

describe('BlueBubbles groups', () => {
  it('takes in a group of 400 people, the one group for that set', async () => {
    const { t, account, rig } = await setup();
    // Numbers as varied as real ones: a regular list would compress below PostgreSQL's index limit.
    const random = seededRandom(35);
    const candidates = Array.from({ length: 1200 }, () => `+1${String(2_000_000_000 + Math.floor(random() * 7_000_000_000))}`);
    const people = [...new Set(candidates.filter((number) => normalisePhoneSpelling(number) === number))].slice(0, 400);
    expect(people).toHaveLength(400);
    const chatGuid = 'iMessage;+;chat-two-hundred';
    rig.fake.world.ensureChat(chatGuid, people, 'iMessage');
    const first = rig.fake.world.receive({ from: people[0]!, text: 'hello everyone', chatGuid });
    const stored = await eventually('the big group message', async () => statusOf(t, first.guid), 25_000);
    const group = await t.store.groups.findById(stored.accountId, stored.groupId!);
    expect(group?.transportGroupId).toBe(chatGuid);
    const listed = await t.call('GET', `/api/v2/groups/${stored.groupId}`, account);
    expect(listed.status).toBe(200);
    const second = rig.fake.world.receive({ from: people[1]!, text: 'hi', chatGuid });
    expect((await eventually('the second message', async () => statusOf(t, second.guid), 25_000)).groupId).toBe(stored.groupId);
  }, 60_000);

  it('creates the group chat and routes members’ messages to textrelay’s group', async () => {
    const { t, account, rig } = await setup();
    const sent = await sendGroup(t, account, { numbers: [ALICE, BOB], content: 'hi both' });
    rig.courier.enqueue(sent.message_handle);
    const message = await until(t, sent.message_handle, 'SENT');
    expect(rig.fake.sends[0]).toMatchObject({ path: 'chat/new', body: { addresses: [ALICE, BOB], method: 'private-api' } });
    const chatGuid = [...rig.fake.world.chats.keys()].find((guid) => guid.includes(';+;'))!;
    // The echo may report SENT before the answer to chat/new has stored the chat's guid.
    const transportGroupId = await eventually(
      'the group chat bound',
      async () => (await t.store.groups.findById(message.accountId, message.groupId!))?.transportGroupId ?? undefined,
      5_000,
    );
    expect(transportGroupId).toBe(chatGuid);
    const reply = rig.fake.world.receive({ from: BOB, text: 'hi back', chatGuid });
    const inbound = await eventually('group reply', async () => statusOf(t, reply.guid), 5_000);
    expect(inbound).toMatchObject({ groupId: message.groupId, number: BOB });
  });
});
