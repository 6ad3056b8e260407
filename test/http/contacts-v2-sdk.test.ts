import SendblueAPI, { BadRequestError, ConflictError, NotFoundError } from 'sendblue';
import { describe, expect, it } from 'vitest';
import { makeTestApp } from '../helpers/app.ts';
import { ALICE, BOB, CAROL } from '../helpers/fixtures.ts';

/** The official SDK itself (sendblue 3.17), pointed at the app in-process: every contacts method, unchanged. */
async function sdkClient() {
  const t = makeTestApp();
  const account = await t.createAccount();
  const client = new SendblueAPI({
    apiKey: account.api_key_id,
    apiSecret: account.api_secret_key,
    baseURL: 'http://textrelay.test',
    maxRetries: 0,
    fetch: async (url, init) => Promise.resolve(await t.app.request(String(url), init as RequestInit)),
  });
  return { t, client };
}

describe('the SDK against /api/v2/contacts', () => {
  it('create, retrieve, update, list, count, opt-out, bulk create and delete, delete', async () => {
    const { client } = await sdkClient();
    const created = await client.contacts.create({ number: ALICE, firstName: 'Alice', tags: ['vip'] });
    expect(created.contact).toMatchObject({ phone: ALICE, first_name: 'Alice', tags: ['vip'], opt_out: false });

    expect((await client.contacts.retrieve(ALICE)).contact?.contact_id).toBe(created.contact?.contact_id);
    const updated = await client.contacts.update(ALICE, { last_name: 'Liddell', custom_variables: { plan: 'gold' } });
    expect(updated.contact).toMatchObject({ last_name: 'Liddell', custom_variables: { plan: 'gold' } });

    const bulk = await client.contacts.bulk.create({ contacts: [{ phone: BOB }, { phone: CAROL, first_name: 'Carol' }] });
    expect(bulk.contacts?.map((contact) => contact.phone)).toEqual([BOB, CAROL]);
    const listed = await client.contacts.list({ order_by: 'phone', order_direction: 'asc' });
    expect(Array.isArray(listed)).toBe(true);
    expect(listed.map((contact) => contact.phone)).toEqual([ALICE, BOB, CAROL]);
    expect(await client.contacts.count()).toEqual({ count: 3 });

    expect(await client.contacts.optOut({ number: BOB })).toEqual({ status: 'OK', number: BOB, opted_out: true });
    expect((await client.contacts.retrieve(BOB)).contact?.opt_out).toBe(true);

    expect(await client.contacts.bulk.delete({ contact_ids: [BOB, CAROL] })).toEqual({ status: 'OK', amount: 2 });
    expect(await client.contacts.delete(ALICE)).toEqual({ status: 'OK' });
    expect(await client.contacts.count()).toEqual({ count: 0 });
  });

  it('rejects with the SDK error classes, carrying the error shape', async () => {
    const { client } = await sdkClient();
    await client.contacts.create({ number: ALICE });
    const duplicate = await client.contacts.create({ number: ALICE }).catch((error: unknown) => error);
    expect(duplicate).toBeInstanceOf(ConflictError);
    expect((duplicate as ConflictError).error).toMatchObject({ error_code: 4090 });
    await expect(client.contacts.retrieve(BOB)).rejects.toBeInstanceOf(NotFoundError);
    await expect(client.contacts.create({ number: 'nope' })).rejects.toBeInstanceOf(BadRequestError);
  });
});
