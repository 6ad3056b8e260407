import { afterEach, describe, expect, it } from 'vitest';
import { statusCommand } from '../../../src/cli/status.ts';
import { type BlueBubblesRig, startBlueBubblesCarrier } from '../../helpers/bluebubbles.ts';
import type { FakeAttachment } from '../../helpers/fake-bluebubbles/world.ts';
import { ALICE, BOB } from '../../helpers/fixtures.ts';
import { eventually } from '../../helpers/live.ts';
import { inboxClient } from '../../inbox/client.ts';

/** Item 3 of issue 35: one message the Mac cannot fully serve never loses its text nor stops the read-back. */

const rigs: BlueBubblesRig[] = [];
afterEach(async () => {
  for (const rig of rigs.splice(0)) await rig.close();
});

async function setup() {
  const world = await startBlueBubblesCarrier();
  rigs.push(world.rig);
  return world;
}

function video(guid: string, bytes: Buffer): FakeAttachment {
  return { guid, mimeType: 'video/quicktime', transferName: `${guid}.mov`, totalBytes: bytes.length, bytes };
}

/** Distinct US numbers, enough to push a group's payload past 4000 bytes. */
function manyNumbers(count: number): string[] {
  return Array.from({ length: count }, (_, index) => `+1202555${String(index).padStart(4, '0')}`);
}

const PICTURE = Buffer.from('89504e470d0a1a0a0001', 'hex');

describe('an iMessage whose attachment the Mac cannot serve', () => {
  it('keeps the text, fetches the attachment on a later pass as a message of its own, and reads back what came after', async () => {
    const { t, rig } = await setup();
    const world = rig.fake.world;
    world.unservable.add('AT-LATE');
    const message = world.receive({
      from: ALICE,
      text: 'look at this',
      attachments: [{ guid: 'AT-LATE', mimeType: 'image/png', transferName: 'cat.png', totalBytes: PICTURE.length, bytes: PICTURE }],
    });
    const stored = await eventually('the text stored', async () => t.store.messages.findByAnyHandle(message.guid), 5_000);
    expect(stored).toMatchObject({ content: 'look at this', mediaUrl: '' });

    world.dropping = true;
    const missed = world.receive({ from: BOB, text: 'sent while webhooks were lost' });
    await world.settled();
    world.dropping = false;
    await rig.carrier.readBack();
    expect(await t.store.messages.findByAnyHandle(missed.guid)).toMatchObject({ content: 'sent while webhooks were lost' });

    // The Mac has the file now: the next pass delivers it, once.
    world.unservable.delete('AT-LATE');
    await rig.carrier.readBack();
    await rig.carrier.readBack();
    const late = await t.store.messages.findByAnyHandle(`${message.guid}/0`);
    expect(late).toMatchObject({ content: '', number: ALICE });
    const served = await t.app.request(new URL(late!.mediaUrl).pathname);
    expect(Buffer.from(await served.arrayBuffer())).toEqual(PICTURE);
  });

  it('gives an attachment up after a bounded number of passes, and says so in status and the inbox', async () => {
    const { t, account, rig } = await setup();
    const world = rig.fake.world;
    world.unservable.add('AT-GONE');
    const message = world.receive({ from: ALICE, text: 'never arrives', attachments: [video('AT-GONE', PICTURE)] });
    await eventually('the text stored', async () => t.store.messages.findByAnyHandle(message.guid), 5_000);
    for (let pass = 0; pass < 8; pass++) await rig.carrier.readBack();
    const downloads = rig.fake.requests.filter((request) => request.url.includes('/attachment/AT-GONE/download'));
    expect(downloads.length).toBeGreaterThan(1);
    expect(downloads.length).toBeLessThanOrEqual(6);
    expect(await t.store.messages.findByAnyHandle(`${message.guid}/0`)).toBeUndefined();

    const status = await statusCommand(t.deps);
    expect(status.human).toContain(message.guid);
    expect(status.human).toMatch(/attachment .*could not be fetched/);
    expect(JSON.stringify(status.value)).toContain(message.guid);

    const inbox = inboxClient(t);
    await inbox.logIn(account);
    const page = await inbox.get('/inbox');
    expect(page.html).toContain(ALICE);
    expect(page.html).toMatch(/attachment .*could not be fetched/);
  });

  it('gives up at once an attachment over the size limit, keeping the text', async () => {
    const { t, rig } = await setup();
    const world = rig.fake.world;
    const big = video('AT-BIG', Buffer.alloc(26 * 1024 * 1024, 1));
    const message = world.receive({ from: ALICE, text: 'a long video', attachments: [big] });
    const stored = await eventually('the text stored', async () => t.store.messages.findByAnyHandle(message.guid), 10_000);
    expect(stored).toMatchObject({ content: 'a long video', mediaUrl: '' });
    await rig.carrier.readBack();
    const status = await statusCommand(t.deps);
    expect(status.human).toMatch(/attachment .*too large/);
  });
});

describe('a webhook event that cannot be recorded', () => {
  it('is written down for the status, and the read-back records it once it can', async () => {
    const { t, rig } = await setup();
    const world = rig.fake.world;
    const chatGuid = 'iMessage;+;chat-webhook-group';
    world.ensureChat(chatGuid, [ALICE, BOB, ...manyNumbers(200)], 'iMessage');
    rig.fake.control.chatFault = true;
    const message = world.receive({ from: ALICE, text: 'hello group', chatGuid });
    await eventually(
      'the problem written down',
      async () => ((await statusCommand(t.deps)).human.includes(message.guid) ? true : undefined),
      5_000,
    );
    expect(await t.store.messages.findByAnyHandle(message.guid)).toBeUndefined();
    rig.fake.control.chatFault = false;
    await rig.carrier.readBack();
    expect(await t.store.messages.findByAnyHandle(message.guid)).toMatchObject({ content: 'hello group' });
  });
});

describe('a read-back item that fails', () => {
  it('is recorded and never stops the cursor; a later pass takes it again', async () => {
    const { t, rig } = await setup();
    const world = rig.fake.world;
    const chatGuid = 'iMessage;+;chat-big-group';
    world.ensureChat(chatGuid, [ALICE, BOB, ...manyNumbers(200)], 'iMessage');
    world.dropping = true;
    // A group message whose participants were dropped from the payload: reading them needs GET chat/:guid.
    const inGroup = world.store({ chatGuid, text: 'hi group', isFromMe: false, handle: { address: ALICE, service: 'iMessage' } });
    const after = world.receive({ from: BOB, text: 'one-to-one, later' });
    await world.settled();
    world.dropping = false;
    rig.fake.control.chatFault = true;
    await rig.carrier.readBack();
    expect(await t.store.messages.findByAnyHandle(after.guid)).toMatchObject({ content: 'one-to-one, later' });
    expect(await t.store.messages.findByAnyHandle(inGroup.guid)).toBeUndefined();
    expect((await statusCommand(t.deps)).human).toContain(inGroup.guid);

    rig.fake.control.chatFault = false;
    await rig.carrier.readBack();
    expect(await t.store.messages.findByAnyHandle(inGroup.guid)).toMatchObject({ content: 'hi group', number: ALICE });
    expect((await statusCommand(t.deps)).human).not.toContain(inGroup.guid);
  });
});
