import { afterEach, describe, expect, it } from 'vitest';
import { type BlueBubblesRig, sendThroughRig, startBlueBubblesCarrier, untilStatus } from '../../helpers/bluebubbles.ts';
import { ALICE } from '../../helpers/fixtures.ts';
import { type Listening, serveOnLoopback } from '../../helpers/listen.ts';

/** Item 9 of issue 35: the send answers as the BlueBubbles server's own source gives them. */

const rigs: BlueBubblesRig[] = [];
const servers: Listening[] = [];
afterEach(async () => {
  for (const rig of rigs.splice(0)) await rig.close();
  for (const server of servers.splice(0)) await server.close();
});

async function setup() {
  const world = await startBlueBubblesCarrier();
  rigs.push(world.rig);
  return world;
}

const PICTURE = Buffer.from('89504e470d0a1a0a0002', 'hex');

/** A picture the tenant's media_url points at. */
async function pictureUrl(): Promise<string> {
  const server = await serveOnLoopback(() => new Response(new Uint8Array(PICTURE), { headers: { 'content-type': 'image/png' } }));
  servers.push(server);
  return `${server.url}/cat.png`;
}

describe('a send the Mac saved with an error', () => {
  it('chat/new: answered 200 with messages[0].error, the message is ERROR with the code', async () => {
    const { t, account, rig } = await setup();
    rig.fake.faults.push({ kind: 'error', code: 22 });
    const handle = await sendThroughRig(t, account, rig, { content: 'to a new person' });
    expect(await untilStatus(t, handle, 'ERROR')).toMatchObject({ errorCode: 10001, errorMessage: 'BlueBubbles error 22' });
    expect(rig.fake.sends.map((send) => send.path)).toEqual(['chat/new']);
  });

  it('message/attachment: answered 200 with data.error, the message is ERROR with the code', async () => {
    const { t, account, rig } = await setup();
    rig.fake.world.ensureChat(`iMessage;-;${ALICE}`, [ALICE], 'iMessage');
    rig.fake.faults.push({ kind: 'error', code: 4 });
    const handle = await sendThroughRig(t, account, rig, { content: '', mediaUrl: await pictureUrl() });
    expect(await untilStatus(t, handle, 'ERROR')).toMatchObject({ errorCode: 10001, errorMessage: 'BlueBubbles error 4' });
  });

  it('message/text: answered 500 without data, the code is read back and the text is not sent again', async () => {
    const { t, account, rig } = await setup();
    rig.fake.world.ensureChat(`iMessage;-;${ALICE}`, [ALICE], 'iMessage');
    rig.fake.faults.push({ kind: 'error', code: 22 });
    const handle = await sendThroughRig(t, account, rig, { content: 'into the chat' });
    expect(await untilStatus(t, handle, 'ERROR')).toMatchObject({ errorCode: 10001, errorMessage: 'BlueBubbles error 22' });
    expect(rig.fake.sends).toHaveLength(1);
  });
});

describe('reading back a send whose answer was lost', () => {
  it('finds a media-only send (attachments come back only when asked for) and does not send it again', async () => {
    const { t, account, rig } = await setup();
    rig.fake.world.ensureChat(`iMessage;-;${ALICE}`, [ALICE], 'iMessage');
    rig.fake.control.autoEcho = false;
    rig.fake.faults.push({ kind: 'unknown', delayMs: 20, sent: true });
    const handle = await sendThroughRig(t, account, rig, { content: '', mediaUrl: await pictureUrl() });
    const sent = await untilStatus(t, handle, 'SENT');
    expect(rig.fake.sends).toHaveLength(1);
    expect(rig.fake.world.messages.get(sent.transportHandle!)?.attachments).toHaveLength(1);
  });

  it('takes a later message-send-error without tempGuid by its guid', async () => {
    const { t, account, rig } = await setup();
    rig.fake.world.ensureChat(`iMessage;-;${ALICE}`, [ALICE], 'iMessage');
    rig.fake.control.autoEcho = false;
    rig.fake.faults.push({ kind: 'unknown', delayMs: 20, sent: true });
    const handle = await sendThroughRig(t, account, rig, { content: 'fails after its first sighting' });
    const sent = await untilStatus(t, handle, 'SENT');
    rig.fake.world.failLater(sent.transportHandle!, 4);
    await rig.fake.world.settled();
    expect(rig.fake.world.pushed.at(-1)?.data.tempGuid).toBeUndefined();
    expect(await untilStatus(t, handle, 'ERROR')).toMatchObject({ errorMessage: 'BlueBubbles error 4' });
  });
});
