import { BadRequestError, InternalServerError } from 'sendblue';
import { afterEach, describe, expect, it } from 'vitest';
import { BB_LINE, type BlueBubblesWorld, startBlueBubblesWorld } from '../../helpers/bluebubbles-world.ts';
import type { FakeBlueBubbles } from '../../helpers/fake-bluebubbles/server.ts';
import { PIXEL_PNG } from '../../helpers/fake-twilio.ts';
import { ALICE, BOB, CAROL } from '../../helpers/fixtures.ts';
import { serveOnLoopback } from '../../helpers/listen.ts';
import { eventually } from '../../helpers/live.ts';
import { refusal } from '../../helpers/sdk-refusal.ts';

const worlds: BlueBubblesWorld[] = [];
afterEach(async () => {
  await Promise.all(worlds.splice(0).map((world) => world.close()));
});

async function started(prepare?: (fake: FakeBlueBubbles) => void): Promise<BlueBubblesWorld> {
  const world = await startBlueBubblesWorld({ prepare });
  worlds.push(world);
  return world;
}

/** A group of ALICE and BOB made by a send through the SDK, once BlueBubbles created its chat. */
async function groupChat(world: BlueBubblesWorld): Promise<{ groupId: string; chatGuid: string }> {
  const sent = await world.sdk.groups.sendMessage({ numbers: [ALICE, BOB], from_number: BB_LINE, content: 'hello both' });
  const groupId = (sent as { group_id?: string }).group_id!;
  const chatGuid = await eventually(
    'the group chat',
    async () => {
      const account = await world.t.store.accounts.findByServiceNumber(BB_LINE);
      return (await world.t.store.groups.findById(account!.id, groupId))?.transportGroupId ?? undefined;
    },
    10_000,
  );
  return { groupId, chatGuid };
}

const statusCallbacks = (world: BlueBubblesWorld, handle: string) =>
  world.receiver.received.filter((request) => request.json?.message_handle === handle).map((request) => request.json.status);

describe('textrelay on BlueBubbles, driven by the official SDK', () => {
  it('sends with SENT then DELIVERED callbacks, and lists a message received on the Mac', async () => {
    const world = await started();
    const sent = await world.sdk.messages.send({
      number: ALICE,
      from_number: BB_LINE,
      content: 'hello over iMessage',
      status_callback: world.receiver.url(),
    });
    const handle = sent.message_handle as string;
    const guid = await eventually(
      'the Mac’s guid',
      async () => (await world.t.store.messages.findByAnyHandle(handle))?.transportHandle ?? undefined,
      10_000,
    );
    await eventually('the SENT callback', async () => (statusCallbacks(world, handle).includes('SENT') ? true : undefined), 10_000);
    world.fake.world.deliver(guid);
    await eventually(
      'the DELIVERED callback',
      async () => (statusCallbacks(world, handle).includes('DELIVERED') ? true : undefined),
      10_000,
    );
    expect(statusCallbacks(world, handle)).toEqual(['QUEUED', 'SENT', 'DELIVERED']);
    expect((await world.sdk.messages.retrieve(handle)).data).toMatchObject({ status: 'DELIVERED', error_code: null });

    world.fake.world.receive({ from: BOB, text: 'hi from the iPhone' });
    const listed = await eventually(
      'the inbound message listed',
      async () => (await world.sdk.messages.list({ number: BOB })).data?.find((message) => message.content === 'hi from the iPhone'),
      10_000,
    );
    expect(listed).toMatchObject({ is_outbound: false, number: BOB, sendblue_number: BB_LINE, service: 'iMessage' });
  });

  it('creates a group by send, then adds a member, renames it and sets its photo through the Private API', async () => {
    const world = await started();
    const { groupId, chatGuid } = await groupChat(world);
    expect(world.fake.sends.find((send) => send.path === 'chat/new')?.body).toMatchObject({
      addresses: [ALICE, BOB],
      method: 'private-api',
    });

    const added = await world.sdk.groups.modify({ group_id: groupId, modify_type: 'add_recipient', number: CAROL });
    expect(added).toMatchObject({ status: 'OK', group_id: groupId, number: CAROL });
    expect(world.fake.world.chat(chatGuid)!.participants.map((member) => member.address)).toEqual([ALICE, BOB, CAROL]);

    const renamed = await world.sdk.v2.groups.rename(groupId, { group_name: 'Road trip' });
    expect(renamed.data).toMatchObject({ group_id: groupId, group_name: 'Road trip' });
    expect(world.fake.world.chat(chatGuid)!.displayName).toBe('Road trip');

    const image = await serveOnLoopback(() => new Response(PIXEL_PNG, { headers: { 'content-type': 'image/png' } }));
    try {
      await world.sdk.v2.groups.setPhoto(groupId, { photo_url: `${image.url}/photo.png` });
    } finally {
      await image.close();
    }
    expect(world.fake.world.chat(chatGuid)!.iconBytes).toEqual(PIXEL_PNG);

    const group = (await world.sdk.v2.groups.retrieve(groupId)).data;
    expect(group).toMatchObject({ group_name: 'Road trip', participant_numbers: [ALICE, BOB, CAROL] });
    expect(group?.group_photo?.url).toMatch(/\/media\//);
    expect(world.fake.changes.map((change) => change.action)).toEqual(['add participant', 'rename', 'icon']);

    await world.sdk.v2.groups.setPhoto(groupId, { photo_url: null });
    expect(world.fake.world.chat(chatGuid)!.iconBytes).toBeUndefined();
    expect((await world.sdk.v2.groups.retrieve(groupId)).data?.group_photo).toBeNull();
  });

  it('shows a typing indicator in the person’s chat, and leaves stopping to the next message on 1.9.9', async () => {
    const world = await started();
    world.fake.world.receive({ from: ALICE, text: 'are you there?' });
    const typing = await world.sdk.typingIndicators.send({ number: ALICE, from_number: BB_LINE, state: 'start' });
    expect(typing).toMatchObject({ number: ALICE, status: 'SENT', error_message: null });
    expect(world.fake.typing).toEqual([{ chatGuid: `iMessage;-;${ALICE}`, what: 'typing' }]);
    await world.sdk.typingIndicators.send({ number: ALICE, from_number: BB_LINE, state: 'stop' });
    expect(world.fake.requests.filter((request) => request.url.includes('/typing')).map((request) => request.method)).toEqual(['POST']);
  });

  it('stops typing through the stop route on a server past 1.9.9', async () => {
    const world = await started((fake) => {
      fake.settings.serverVersion = '1.9.10';
    });
    world.fake.world.receive({ from: ALICE, text: 'are you there?' });
    await world.sdk.typingIndicators.send({ number: ALICE, from_number: BB_LINE, state: 'start' });
    await world.sdk.typingIndicators.send({ number: ALICE, from_number: BB_LINE, state: 'stop' });
    expect(world.fake.typing.map((call) => call.what)).toEqual(['typing', 'stop-typing']);
  });
});

describe('BlueBubbles without its Private API', () => {
  it('refuses group changes and typing with 400 naming it, changing nothing, and takes them once it is on', async () => {
    const world = await started();
    const { groupId, chatGuid } = await groupChat(world);
    world.fake.world.receive({ from: ALICE, text: 'hi' });
    // The server turns it off after textrelay last read server/info: the route's own refusal tells.
    world.fake.settings.helperConnected = false;
    const refused = await refusal(world.sdk.groups.modify({ group_id: groupId, modify_type: 'add_recipient', number: CAROL }));
    expect(refused).toBeInstanceOf(BadRequestError);
    expect(refused.error).toMatchObject({ status: 'ERROR', error_code: 4000 });
    expect((refused.error as { error_message: string }).error_message).toMatch(
      /Private API, which is enabled but its helper is not connected/,
    );

    world.fake.settings.privateApi = false;
    for (const call of [
      () => world.sdk.v2.groups.rename(groupId, { group_name: 'Never' }),
      () => world.sdk.typingIndicators.send({ number: ALICE, from_number: BB_LINE, state: 'start' }),
      () => world.sdk.groups.modify({ group_id: groupId, modify_type: 'remove_recipient', number: BOB }),
    ]) {
      const error = await refusal(call());
      expect(error.status).toBe(400);
      expect(JSON.stringify(error.error)).toMatch(/needs its Private API, which is not enabled on the server: turn on Private API/);
    }
    expect(world.fake.changes).toEqual([]);
    expect(world.fake.typing).toEqual([]);
    // Only the first call reached a Private API route: the others were refused on server/info's word.
    const privateRoutes = world.fake.requests.filter((request) => /\/participant|\/typing/.test(request.url) || request.method === 'PUT');
    expect(privateRoutes).toHaveLength(1);
    const group = (await world.sdk.v2.groups.retrieve(groupId)).data;
    expect(group).toMatchObject({ group_name: '', participant_numbers: [ALICE, BOB] });

    world.fake.settings.privateApi = true;
    world.fake.settings.helperConnected = true;
    await world.sdk.groups.modify({ group_id: groupId, modify_type: 'add_recipient', number: CAROL });
    expect(world.fake.world.chat(chatGuid)!.participants.map((member) => member.address)).toEqual([ALICE, BOB, CAROL]);
  });

  it('keeps member changes of a group whose chat was never made for its first send, and refuses a name until then', async () => {
    const world = await started((fake) => {
      fake.settings.privateApi = false;
    });
    const sent = await world.sdk.groups.sendMessage({ numbers: [ALICE, BOB], from_number: BB_LINE, content: 'hello both' });
    const groupId = (sent as { group_id?: string }).group_id!;
    await eventually(
      'the refused send',
      async () => ((await world.sdk.messages.retrieve(sent.message_handle!)).data?.status === 'ERROR' ? true : undefined),
      10_000,
    );
    await world.sdk.groups.modify({ group_id: groupId, modify_type: 'add_recipient', number: CAROL });
    expect((await world.sdk.v2.groups.retrieve(groupId)).data?.participant_numbers).toEqual([ALICE, BOB, CAROL]);
    const renamed = await refusal(world.sdk.v2.groups.rename(groupId, { group_name: 'Road trip' }));
    expect(renamed.status).toBe(400);
    expect(JSON.stringify(renamed.error)).toContain('has no chat at its line');
    expect(world.fake.changes).toEqual([]);
  });

  it('answers a change BlueBubbles failed to make with 503, the group unchanged', async () => {
    const world = await started();
    const { groupId, chatGuid } = await groupChat(world);
    world.fake.control.changeFault = true;
    const failed = await refusal(world.sdk.v2.groups.rename(groupId, { group_name: 'Road trip' }));
    expect(failed).toBeInstanceOf(InternalServerError);
    expect(failed.status).toBe(503);
    expect(JSON.stringify(failed.error)).toMatch(
      /Renaming a group failed at BlueBubbles: .*Operation took longer than 30 seconds.*nothing was changed/,
    );
    expect(JSON.stringify(failed.error)).not.toContain(world.fake.settings.password);
    expect((await world.sdk.v2.groups.retrieve(groupId)).data?.group_name).toBe('');
    expect(world.fake.world.chat(chatGuid)!.displayName).toBe('');

    const clearing = await refusal(world.sdk.v2.groups.rename(groupId, { group_name: null }));
    expect(clearing.status).toBe(400);
    expect(JSON.stringify(clearing.error)).toContain('BlueBubbles cannot clear a group name');
  });
});
