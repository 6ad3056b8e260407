import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRetention } from '../../src/retention.ts';
import { makeTestApp, type TestAccount, type TestApp } from '../helpers/app.ts';
import { expectMessageError } from '../helpers/expect.ts';
import { ALICE, BOB } from '../helpers/fixtures.ts';
import { rowCounts } from '../helpers/row-counts.ts';

const DAY_MS = 86_400_000;
/** 600 KB: one fits in a 1 MB quota, two do not. */
const FILE = Buffer.alloc(600 * 1024, 1);

let origin: string;
let server: Server;

beforeAll(async () => {
  server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'image/png' });
    response.end(FILE);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const numberAt = (i: number) => `+1415555${String(1000 + i)}`;
const upload = (t: TestApp, account: TestAccount) =>
  t.call('POST', '/api/upload-media-object', account, { media_url: `${origin}/photo.png` });

describe('the contacts quota (TEXTRELAY_CONTACTS_QUOTA)', () => {
  it('refuses a contact past the limit with 403/4031 naming the limit and its setting, on every create route', async () => {
    const t = makeTestApp({ quotas: { TEXTRELAY_CONTACTS_QUOTA: 2 } });
    const account = await t.createAccount();
    for (const i of [0, 1]) expect((await t.call('POST', '/api/v2/contacts', account, { number: numberAt(i) })).status).toBe(200);
    const before = await rowCounts(t);

    const v2 = await t.call('POST', '/api/v2/contacts', account, { number: numberAt(2) });
    expectMessageError(v2, 403, 4031);
    expect(v2.body.error_message).toBe('This account has 2 contacts; 1 more would pass its limit of 2 (TEXTRELAY_CONTACTS_QUOTA)');
    const v1 = await t.call('POST', '/accounts/contacts', account, { firstName: 'A', lastName: 'B', number: numberAt(3) });
    expect(v1.status).toBe(403);
    expect(v1.body).toEqual({ status: 'ERROR', message: expect.stringContaining('TEXTRELAY_CONTACTS_QUOTA') });
    expect(await rowCounts(t)).toEqual(before);

    // Updating an existing contact adds none; deleting one makes room.
    const update = await t.call('POST', '/api/v2/contacts', account, { number: numberAt(0), first_name: 'Ann', update_if_exists: true });
    expect(update.status).toBe(200);
    expect((await t.call('DELETE', `/api/v2/contacts/${numberAt(0)}`, account)).status).toBe(200);
    expect((await t.call('POST', '/api/v2/contacts', account, { number: numberAt(2) })).status).toBe(200);
    // Another account has its own quota.
    const other = await t.createAccount();
    expect((await t.call('POST', '/api/v2/contacts', other, { number: numberAt(0) })).status).toBe(200);
  });

  it('counts every row of a bulk creation, refusing the whole batch', async () => {
    const t = makeTestApp({ quotas: { TEXTRELAY_CONTACTS_QUOTA: 5 } });
    const account = await t.createAccount();
    expect((await t.call('POST', '/api/v2/contacts', account, { number: numberAt(0) })).status).toBe(200);
    const before = await rowCounts(t);
    const contacts = [1, 2, 3, 4, 5].map((i) => ({ phone: numberAt(i) }));
    const bulk = await t.call('POST', '/api/v2/contacts/bulk', account, { contacts });
    expectMessageError(bulk, 403, 4031);
    expect(bulk.body.error_message).toBe('This account has 1 contacts; 5 more would pass its limit of 5 (TEXTRELAY_CONTACTS_QUOTA)');
    expect(await rowCounts(t)).toEqual(before);
    expect((await t.call('POST', '/api/v2/contacts/bulk', account, { contacts: contacts.slice(0, 4) })).status).toBe(200);
    expect((await t.call('GET', '/api/v2/contacts/count', account)).body).toEqual({ count: 5 });
  });
});

describe('the media quota (TEXTRELAY_MEDIA_QUOTA_MB)', () => {
  it('refuses a file past the limit with 403/4031 naming the limit and its setting, storing nothing', async () => {
    const t = makeTestApp({ quotas: { TEXTRELAY_MEDIA_QUOTA_MB: 1 } });
    const account = await t.createAccount();
    expect((await upload(t, account)).status).toBe(200);
    const before = await rowCounts(t);
    const refused = await upload(t, account);
    expectMessageError(refused, 403, 4031);
    expect(refused.body.error_message).toBe(
      'This account stores 0.6 MB of media; a 0.6 MB file would pass its limit of 1 MB (TEXTRELAY_MEDIA_QUOTA_MB)',
    );
    expect(await rowCounts(t)).toEqual(before);
    // The quota is the account's own.
    expect((await upload(t, await t.createAccount())).status).toBe(200);
  });
});

describe('media retention (TEXTRELAY_MEDIA_RETENTION_DAYS)', () => {
  it("removes files past their retention, but not a group's current photo", async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const old = await upload(t, account);
    const group = await t.call('POST', '/api/send-group-message', account, { numbers: [ALICE, BOB], content: 'hi' });
    const photo = await t.call('POST', `/api/v2/groups/${group.body.group_id}/photo`, account, { photo_url: `${origin}/face.png` });
    expect(photo.status, JSON.stringify(photo.body)).toBe(200);
    t.clock.advance(31 * DAY_MS);
    const recent = await upload(t, account);

    const pass = await createRetention(t.deps, {
      deliveryRetentionMs: 0,
      orphanEventRetentionMs: 0,
      unroutedRetentionMs: 0,
      mediaRetentionMs: 30 * DAY_MS,
      batchPauseMs: 0,
    }).prunePass();

    expect(pass.media_objects).toBe(1);
    expect((await t.app.request(new URL(old.body.media_url).pathname)).status).toBe(404);
    expect((await t.app.request(new URL(recent.body.media_url).pathname)).status).toBe(200);
    expect((await t.app.request(new URL(photo.body.data.group_photo.url).pathname)).status).toBe(200);
  });
});
