import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestAccount, type TestApp } from '../helpers/app.ts';
import { expectMessageError } from '../helpers/expect.ts';
import { ALICE, BOB, CAROL } from '../helpers/fixtures.ts';
import { payloadsFor } from '../helpers/outbox.ts';
import { fakeProvider } from '../helpers/sdk-surface.ts';

const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001', 'hex');
const UNKNOWN_GROUP = '8a4c1e5e-3b8f-4d7e-9d55-1c2f3e4a5b6c';
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

let origin: string;
let server: Server;

beforeAll(async () => {
  server = createServer((request, response) => {
    if (request.url === '/face.png') {
      response.writeHead(200, { 'content-type': 'image/png' });
      return response.end(PNG);
    }
    if (request.url === '/clip.mp4') {
      response.writeHead(200, { 'content-type': 'video/mp4' });
      return response.end(Buffer.alloc(16));
    }
    response.writeHead(404);
    response.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

async function createGroup(t: TestApp, account: TestAccount, numbers: string[]): Promise<{ groupId: string; handle: string }> {
  const sent = await t.call('POST', '/api/send-group-message', account, { numbers, content: 'founding message' });
  expect(sent.status, JSON.stringify(sent.body)).toBe(202);
  return { groupId: sent.body.group_id, handle: sent.body.message_handle };
}

const retrieve = (t: TestApp, account: TestAccount | undefined, groupId: string) => t.call('GET', `/api/v2/groups/${groupId}`, account);
const rename = (t: TestApp, account: TestAccount | undefined, groupId: string, body: unknown) =>
  t.call('POST', `/api/v2/groups/${groupId}/name`, account, body);
const setPhoto = (t: TestApp, account: TestAccount | undefined, groupId: string, body: unknown) =>
  t.call('POST', `/api/v2/groups/${groupId}/photo`, account, body);

describe('GET /api/v2/groups/{groupID}', () => {
  it('answers the group: no name yet, no photo, its end users with contact names, its newest message', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const named = await t.call('POST', '/accounts/contacts', account, { firstName: 'Alice', lastName: 'Liddell', number: ALICE });
    expect(named.status, JSON.stringify(named.body)).toBeLessThan(300);
    const { groupId } = await createGroup(t, account, [ALICE, BOB]);
    const latest = await t.call('POST', '/sandbox/inbound', account, { number: BOB, group_id: groupId, content: 'newest' });

    const reply = await retrieve(t, account, groupId);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    const { data } = reply.body;
    expect(reply.body.status).toBe('OK');
    expect(data).toMatchObject({
      group_id: groupId,
      group_name: '',
      group_photo: null,
      latest_message_id: latest.body.message_handle,
      worker_group_id: null,
    });
    expect([...data.participant_numbers].sort()).toEqual([ALICE, BOB].sort());
    expect(data.participant_numbers).not.toContain(account.numbers[0]);
    const alice = data.participants.find((p: any) => p.phone === ALICE);
    expect(alice).toEqual({
      participant_id: expect.any(String),
      type: 'contact',
      phone: ALICE,
      handle: ALICE,
      contact_id: expect.any(String),
      name: 'Alice Liddell',
      seat_id: null,
    });
    expect(data.participants.find((p: any) => p.phone === BOB)).toMatchObject({ name: null, type: 'contact' });
    for (const field of ['created_at', 'updated_at', 'latest_comm_at']) expect(data[field], field).toMatch(ISO);
  });

  it('follows membership changes', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const { groupId } = await createGroup(t, account, [ALICE, BOB, CAROL]);
    await t.call('POST', '/api/modify-group', account, { group_id: groupId, modify_type: 'remove_recipient', number: CAROL });
    expect([...(await retrieve(t, account, groupId)).body.data.participant_numbers].sort()).toEqual([ALICE, BOB].sort());
  });

  it("answers 404/4040 for an unknown or another account's group, 403/4030 off sapphire, 401 without credentials", async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const stranger = await t.createAccount();
    const blue = await t.createAccount({ plan: 'blue' });
    const { groupId } = await createGroup(t, account, [ALICE, BOB]);
    expectMessageError(await retrieve(t, account, UNKNOWN_GROUP), 404, 4040);
    expectMessageError(await retrieve(t, stranger, groupId), 404, 4040);
    const refused = await retrieve(t, blue, groupId);
    expectMessageError(refused, 403, 4030);
    expect(refused.body.error_message).toMatch(/sapphire/);
    expectMessageError(await retrieve(t, undefined, groupId), 401, 4010);
  });
});

describe('POST /api/v2/groups/{groupID}/name', () => {
  it('renames; retrieve and later receive webhooks carry the name; null and "" clear it', async () => {
    const t = makeTestApp();
    const account = await t.createAccount({ receiveWebhook: 'https://hooks.example.com/receive' });
    const { groupId } = await createGroup(t, account, [ALICE, BOB]);
    const reply = await rename(t, account, groupId, { group_name: 'Book club' });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body).toEqual({ status: 'OK', data: { from_number: account.numbers[0], group_id: groupId, group_name: 'Book club' } });
    expect((await retrieve(t, account, groupId)).body.data.group_name).toBe('Book club');

    const inbound = await t.call('POST', '/sandbox/inbound', account, { number: ALICE, group_id: groupId, content: 'hi' });
    expect((await payloadsFor(t, inbound.body.message_handle))[0]).toMatchObject({ group_display_name: 'Book club' });

    for (const cleared of [null, '']) {
      await rename(t, account, groupId, { group_name: 'again' });
      const reply = await rename(t, account, groupId, { group_name: cleared });
      expect(reply.body.data.group_name).toBe('');
      expect((await retrieve(t, account, groupId)).body.data.group_name).toBe('');
    }
  });

  it("takes one of the account's lines as from_number, and refuses another", async () => {
    const t = makeTestApp();
    const account = await t.createAccount({ numbers: 2 });
    const other = await t.createAccount();
    const { groupId } = await createGroup(t, account, [ALICE, BOB]);
    const line = account.numbers[1]!;
    expect(account.numbers).toHaveLength(2);
    expect((await rename(t, account, groupId, { group_name: 'x', from_number: line })).body.data.from_number).toBe(line);
    const refused = await rename(t, account, groupId, { group_name: 'x', from_number: other.numbers[0] });
    expectMessageError(refused, 400, 4000);
    expect(refused.body.error_message).toMatch(/from_number/);
  });

  it('refuses a missing or ill-typed group_name with 400/4000, and checks the group first', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const { groupId } = await createGroup(t, account, [ALICE, BOB]);
    for (const body of [{}, { group_name: 5 }]) {
      const reply = await rename(t, account, groupId, body);
      expectMessageError(reply, 400, 4000);
      expect(reply.body.error_message).toMatch(/group_name/);
    }
    expectMessageError(await rename(t, account, UNKNOWN_GROUP, {}), 404, 4040);
  });

  it('relay: forwards under the provider group id and records the name only when the provider agrees', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const { groupId } = await createGroup(t, account, [ALICE, BOB]);
    await t.store.groups.setTransportGroupId(groupId, 'prov-group-7');
    const answer = { status: 'OK', data: { from_number: account.numbers[0], group_id: 'prov-group-7', group_name: 'Relayed' } };
    const calls = fakeProvider(t, () => ({ status: 200, body: answer }));
    expect((await rename(t, account, groupId, { group_name: 'Relayed' })).body).toEqual({
      ...answer,
      data: { ...answer.data, group_id: groupId },
    });
    expect(calls).toEqual([
      { method: 'POST', path: '/api/v2/groups/prov-group-7/name', body: { group_name: 'Relayed', from_number: account.numbers[0] } },
    ]);
    expect((await retrieve(t, account, groupId)).body.data.group_name).toBe('Relayed');

    fakeProvider(t, () => ({ status: 400, body: { status: 'ERROR', message: 'no' } }));
    expect((await rename(t, account, groupId, { group_name: 'Refused' })).status).toBe(400);
    expect((await retrieve(t, account, groupId)).body.data.group_name).toBe('Relayed');
  });
});

describe('POST /api/v2/groups/{groupID}/photo', () => {
  it('stores the image, serves it at textrelay URL, retrieve shows it; null clears it', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const { groupId } = await createGroup(t, account, [ALICE, BOB]);
    const reply = await setPhoto(t, account, groupId, { photo_url: `${origin}/face.png` });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    const photo = reply.body.data.group_photo;
    expect(reply.body).toEqual({
      status: 'OK',
      data: {
        from_number: account.numbers[0],
        group_id: groupId,
        group_photo: { photo_guid: expect.any(String), url: expect.any(String) },
      },
    });
    expect(photo.photo_guid).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(photo.url).toBe(`http://localhost/media/${photo.photo_guid}.png`);
    const served = await t.app.request(new URL(photo.url).pathname);
    expect(Buffer.from(await served.arrayBuffer())).toEqual(PNG);
    expect((await retrieve(t, account, groupId)).body.data.group_photo).toEqual(photo);

    const cleared = await setPhoto(t, account, groupId, { photo_url: null });
    expect(cleared.body.data.group_photo).toBeNull();
    expect((await retrieve(t, account, groupId)).body.data.group_photo).toBeNull();
  });

  it('refuses what is not an image, or cannot be fetched, with 400/4000 naming photo_url', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const { groupId } = await createGroup(t, account, [ALICE, BOB]);
    const video = await setPhoto(t, account, groupId, { photo_url: `${origin}/clip.mp4` });
    expectMessageError(video, 400, 4000);
    expect(video.body.error_message).toBe('photo_url is video/mp4, not an accepted image type');
    const missing = await setPhoto(t, account, groupId, { photo_url: `${origin}/gone.png` });
    expect(missing.body.error_message).toBe('photo_url could not be fetched: answered 404');
    expectMessageError(await setPhoto(t, account, groupId, {}), 400, 4000);
    expect((await retrieve(t, account, groupId)).body.data.group_photo).toBeNull();
  });

  it('needs sapphire', async () => {
    const t = makeTestApp();
    const blue = await t.createAccount({ plan: 'blue' });
    expectMessageError(await setPhoto(t, blue, UNKNOWN_GROUP, { photo_url: null }), 403, 4030);
    expectMessageError(await rename(t, blue, UNKNOWN_GROUP, { group_name: 'x' }), 403, 4030);
  });

  it("relay: forwards, and retrieve shows the provider's photo URL", async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const { groupId } = await createGroup(t, account, [ALICE, BOB]);
    await t.store.groups.setTransportGroupId(groupId, 'prov-group-9');
    const providerPhoto = { photo_guid: 'p-1', url: 'https://cdn.provider.example/p-1.png' };
    const answer = { status: 'OK', data: { from_number: account.numbers[0], group_id: groupId, group_photo: providerPhoto } };
    const calls = fakeProvider(t, () => ({ status: 200, body: answer }));
    const reply = await setPhoto(t, account, groupId, { photo_url: `${origin}/face.png` });
    expect(reply.body).toMatchObject({ status: 'OK', data: { group_id: groupId, group_photo: { url: providerPhoto.url } } });
    expect(calls[0]).toMatchObject({
      method: 'POST',
      path: '/api/v2/groups/prov-group-9/photo',
      body: { photo_url: `${origin}/face.png` },
    });
    expect((await retrieve(t, account, groupId)).body.data.group_photo).toMatchObject({ url: providerPhoto.url });
  });
});
