import { asc, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { webhookDeliveries } from '../../src/db/schema.ts';
import { ProviderAnswer, type ProviderApi, type ProviderRequest } from '../../src/services/provider.ts';
import { createProviderAccounts } from '../../src/transports/provider-api.ts';
import { makeTestApp, type TestAccount, type TestApp } from '../helpers/app.ts';
import { accountRow } from '../helpers/delivery.ts';
import { startFakeUpstream } from '../helpers/fake-upstream.ts';
import { ALICE, BOB, CAROL, LOOPBACK_ALLOWED, show } from '../helpers/fixtures.ts';
import { captureStatements, expectIndexed, explain } from '../helpers/query-plans.ts';

/** The SDK's contacts calls (/api/v2/contacts), as a client using `sendblue` 3.17 makes them. */

const CONTACT_FIELDS = [
  'contact_id',
  'phone',
  'first_name',
  'last_name',
  'company_name',
  'assigned_to_email',
  'sendblue_number',
  'tags',
  'custom_variables',
  'opt_out',
  'verified',
  'created_at',
];
const CONTACT_HOOK = 'https://hooks.example.com/contacts';

async function subscribeToContacts(t: TestApp, account: TestAccount): Promise<void> {
  await t.store.webhookSubscriptions.add({
    accountId: (await accountRow(t, account)).id,
    type: 'contact_created',
    url: CONTACT_HOOK,
    secret: null,
    sendblueNumbers: null,
    givenAsObject: false,
    createdAt: t.clock.now(),
  });
}

/** The bodies of the contact_created deliveries queued, oldest first. */
function contactDeliveries(t: TestApp): any[] {
  return t.db
    .select()
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.eventType, 'contact.created'))
    .orderBy(asc(webhookDeliveries.seq))
    .all()
    .map((row) => JSON.parse(row.payload));
}

async function contactEvents(t: TestApp, account: TestAccount): Promise<any[]> {
  return (await t.store.accountEvents.after((await accountRow(t, account)).id, 0, 1000))
    .filter((event) => event.type === 'contact.created')
    .map((event) => JSON.parse(event.data));
}

async function setUp() {
  const t = makeTestApp();
  const account = await t.createAccount();
  return { t, account, call: (method: string, path: string, body?: unknown) => t.call(method, path, account, body) };
}

describe('contacts.create / retrieve / update', () => {
  it('creates with every Contact field present, emits contact_created and contact.created, and retrieves by any path form', async () => {
    const { t, account, call } = await setUp();
    await subscribeToContacts(t, account);
    const created = await call('POST', '/api/v2/contacts', {
      number: ALICE,
      first_name: 'Alice',
      lastName: 'Liddell',
      assignedToEmail: 'sales@example.com',
      tags: ['vip'],
      custom_variables: { plan: 'gold' },
    });
    expect(created.status, show(created.body)).toBe(200);
    expect(Object.keys(created.body.contact).sort()).toEqual([...CONTACT_FIELDS].sort());
    expect(created.body).toMatchObject({
      status: 'OK',
      contact: {
        phone: ALICE,
        first_name: 'Alice',
        last_name: 'Liddell',
        company_name: '',
        assigned_to_email: 'sales@example.com',
        sendblue_number: '',
        tags: ['vip'],
        custom_variables: { plan: 'gold' },
        opt_out: false,
        verified: false,
        created_at: new Date(t.clock.now()).toISOString(),
      },
    });
    expect(contactDeliveries(t)).toEqual([created.body.contact]);
    expect(await contactEvents(t, account)).toEqual([{ contact_id: created.body.contact.contact_id, phone: ALICE }]);

    for (const path of [ALICE, encodeURIComponent(ALICE), ALICE.slice(1)]) {
      const got = await call('GET', `/api/v2/contacts/${path}`);
      expect(got.status, path).toBe(200);
      expect(got.body).toEqual({ status: 'OK', contact: created.body.contact });
    }
  });

  it('takes the older spellings of number, snake_case wins over camelCase', async () => {
    const { call } = await setUp();
    const byAlias = await call('POST', '/api/v2/contacts', { phoneNumber: BOB, first_name: 'Snake', firstName: 'Camel' });
    expect(byAlias.status, show(byAlias.body)).toBe(200);
    expect(byAlias.body.contact).toMatchObject({ phone: BOB, first_name: 'Snake' });
    const bySnakeAlias = await call('POST', '/api/v2/contacts', { phone_number: CAROL, firstName: 'Camel' });
    expect(bySnakeAlias.body.contact).toMatchObject({ phone: CAROL, first_name: 'Camel' });
  });

  it('refuses a duplicate with 409 and x-should-retry false, unless update_if_exists, which is not a creation', async () => {
    const { t, account, call } = await setUp();
    await subscribeToContacts(t, account);
    await call('POST', '/api/v2/contacts', { number: ALICE, first_name: 'A' });
    const again = await call('POST', '/api/v2/contacts', { number: ALICE });
    expect(again.status).toBe(409);
    expect(again.headers.get('x-should-retry')).toBe('false');
    expect(again.body).toMatchObject({ status: 'ERROR', error_code: 4090 });
    const updated = await call('POST', '/api/v2/contacts', { number: ALICE, last_name: 'B', update_if_exists: true });
    expect(updated.status).toBe(200);
    expect(updated.body.contact).toMatchObject({ first_name: 'A', last_name: 'B' });
    expect(contactDeliveries(t)).toHaveLength(1);
  });

  it('answers 400 naming the field', async () => {
    const { call } = await setUp();
    const cases: [unknown, RegExp][] = [
      [{}, /number is required/],
      [{ number: '12' }, /number must be an E.164/],
      [{ number: ALICE, tags: 'vip' }, /tags/],
      [{ number: ALICE, custom_variables: { a: 1 } }, /custom_variables/],
      [{ number: ALICE, sendblue_number: BOB }, /sendblue_number .* not one of this account's lines/],
      [{ number: ALICE, update_if_exists: 'yes' }, /update_if_exists/],
    ];
    for (const [body, message] of cases) {
      const reply = await call('POST', '/api/v2/contacts', body);
      expect(reply.status, show(body)).toBe(400);
      expect(reply.body).toMatchObject({ status: 'ERROR', error_code: 4000 });
      expect(reply.body.error_message).toMatch(message);
    }
    expect((await call('GET', '/api/v2/contacts/not-a-number')).body.error_message).toMatch(/path must be E.164/);
  });

  it('sendblue_number pins the person to that line; a contact already pinned keeps its line', async () => {
    const t = makeTestApp();
    const account = await t.createAccount({ numbers: 2 });
    const [first, second] = account.numbers as [string, string];
    const created = await t.call('POST', '/api/v2/contacts', account, { number: ALICE, sendblue_number: second });
    expect(created.body.contact.sendblue_number).toBe(second);
    const sent = await t.call('POST', '/api/send-message', account, { number: ALICE, content: 'hi' });
    expect(sent.body.from_number).toBe(second);
    const moved = await t.call('PUT', `/api/v2/contacts/${ALICE}`, account, { sendblueNumber: first });
    expect(moved.body.contact.sendblue_number).toBe(second);
  });

  it('updates both spellings, replaces tags and variables, sets opt_out; 404 for an unknown number', async () => {
    const { call } = await setUp();
    await call('POST', '/api/v2/contacts', { number: ALICE, tags: ['a', 'b'], custom_variables: { x: '1' } });
    const updated = await call('PUT', `/api/v2/contacts/${ALICE}`, {
      company_name: 'Acme',
      companyName: 'Ignored',
      firstName: 'Al',
      tags: ['c'],
      custom_variables: {},
      optOut: true,
    });
    expect(updated.status, show(updated.body)).toBe(200);
    expect(updated.body.contact).toMatchObject({
      company_name: 'Acme',
      first_name: 'Al',
      tags: ['c'],
      custom_variables: {},
      opt_out: true,
    });
    const missing = await call('PUT', `/api/v2/contacts/${BOB}`, { first_name: 'x' });
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ status: 'ERROR', error_code: 4040 });
  });

  it('a contact made by a send is announced with its line, can be named, and deleted', async () => {
    const { t, account, call } = await setUp();
    await subscribeToContacts(t, account);
    const sent = await call('POST', '/api/send-message', { number: ALICE, content: 'hello' });
    expect(contactDeliveries(t)).toMatchObject([{ phone: ALICE, first_name: '', sendblue_number: sent.body.from_number }]);
    await call('POST', '/api/send-message', { number: ALICE, content: 'again' });
    expect(contactDeliveries(t)).toHaveLength(1);
    const named = await call('PUT', `/api/v2/contacts/${ALICE}`, { first_name: 'Alice' });
    expect(named.status, show(named.body)).toBe(200);
    expect(named.body.contact).toMatchObject({ phone: ALICE, first_name: 'Alice', sendblue_number: sent.body.from_number });
    expect((await call('DELETE', `/api/v2/contacts/${ALICE}`)).body).toEqual({ status: 'OK' });
    expect((await call('GET', `/api/v2/contacts/${ALICE}`)).status).toBe(404);
  });

  it('a send brings a deleted contact back announced with its pin, whatever line it is sent from, logged before the message', async () => {
    const t = makeTestApp();
    const account = await t.createAccount({ numbers: 2 });
    const [first, second] = account.numbers as [string, string];
    await subscribeToContacts(t, account);
    await t.call('POST', '/api/send-message', account, { number: ALICE, content: 'hi', from_number: second });
    await t.call('DELETE', `/api/v2/contacts/${ALICE}`, account);
    const sent = await t.call('POST', '/api/send-message', account, { number: ALICE, content: 'back', from_number: first });
    expect(sent.body.from_number).toBe(first);
    expect(contactDeliveries(t).map((c) => c.sendblue_number)).toEqual([second, second]);
    const log = await t.store.accountEvents.after((await accountRow(t, account)).id, 0, 100);
    expect(log.map((event) => event.type).filter((type) => type.endsWith('.created'))).toEqual([
      'contact.created',
      'message.created',
      'contact.created',
      'message.created',
    ]);
  });
});

describe('routing', () => {
  it('leaves POST /api/v2/contacts/verify to its own route (not a phone number)', async () => {
    const { call } = await setUp();
    const reply = await call('POST', '/api/v2/contacts/verify', { number: ALICE });
    expect([404, 501], show(reply.body)).toContain(reply.status);
  });

  it('v1 create brings a deleted contact back as a new one', async () => {
    const { t, account, call } = await setUp();
    await call('POST', '/api/v2/contacts', { number: ALICE, tags: ['old'] });
    await call('DELETE', `/api/v2/contacts/${ALICE}`);
    const v1 = await call('POST', '/accounts/contacts', { firstName: 'New', lastName: 'One', number: ALICE });
    expect(v1.status, show(v1.body)).toBe(200);
    expect((await call('GET', `/api/v2/contacts/${ALICE}`)).body.contact).toMatchObject({ first_name: 'New', tags: [] });
    expect(await contactEvents(t, account)).toHaveLength(2);
  });
});

describe('contacts.list / count', () => {
  it('lists a bare array, ordered and filtered, and counts', async () => {
    const { t, call } = await setUp();
    for (const [number, name] of [
      [ALICE, 'Cleo'],
      [BOB, 'Abe'],
      [CAROL, 'Bea'],
    ] as const) {
      await call('POST', '/api/v2/contacts', { number, first_name: name });
      t.clock.advance(1000);
    }
    const all = await call('GET', '/api/v2/contacts');
    expect(Array.isArray(all.body), show(all.body)).toBe(true);
    expect(all.body.map((c: any) => c.phone)).toEqual([CAROL, BOB, ALICE]);
    const byName = await call('GET', '/api/v2/contacts?order_by=first_name&order_direction=asc&limit=2');
    expect(byName.body.map((c: any) => c.first_name)).toEqual(['Abe', 'Bea']);
    const page = await call('GET', '/api/v2/contacts?order_by=phone&order_direction=asc&offset=1');
    expect(page.body.map((c: any) => c.phone)).toEqual([BOB, CAROL]);
    const one = await call('GET', `/api/v2/contacts?phone_number=${encodeURIComponent(BOB)}`);
    expect(one.body.map((c: any) => c.phone)).toEqual([BOB]);
    const byCid = await call('GET', `/api/v2/contacts?cid=${one.body[0].contact_id}`);
    expect(byCid.body).toEqual(one.body);
    const since = new Date(t.clock.now() - 1500).toISOString();
    expect((await call('GET', `/api/v2/contacts?created_at_gte=${since}`)).body.map((c: any) => c.phone)).toEqual([CAROL]);
    expect((await call('GET', '/api/v2/contacts/count')).body).toEqual({ count: 3 });
    const bad = await call('GET', '/api/v2/contacts?order_by=color');
    expect(bad.status).toBe(400);
    expect(bad.body.error_message).toMatch(/order_by/);
  });
});

describe('contacts.delete (soft) and revival', () => {
  it('hides the contact from v2 and v1 reads and the count, keeps its messages and pin; creating it again is a fresh creation', async () => {
    const { t, account, call } = await setUp();
    await subscribeToContacts(t, account);
    const sent = await call('POST', '/api/send-message', { number: ALICE, content: 'keep me' });
    await call('PUT', `/api/v2/contacts/${ALICE}`, { first_name: 'Old' });
    expect((await call('DELETE', `/api/v2/contacts/${ALICE}`)).status).toBe(200);
    expect((await call('DELETE', `/api/v2/contacts/${ALICE}`)).status).toBe(404);
    expect((await call('GET', '/api/v2/contacts')).body).toEqual([]);
    expect((await call('GET', '/api/v2/contacts/count')).body).toEqual({ count: 0 });
    expect((await call('GET', '/accounts/contacts')).body).toEqual([]);
    const status = await call('GET', `/api/status?handle=${sent.body.message_handle}`);
    expect(status.status).toBe(200);

    t.clock.advance(60_000);
    const again = await call('POST', '/api/v2/contacts', { number: ALICE });
    expect(again.status, show(again.body)).toBe(200);
    expect(again.body.contact).toMatchObject({
      first_name: '',
      sendblue_number: sent.body.from_number,
      created_at: new Date(t.clock.now()).toISOString(),
    });
    expect(contactDeliveries(t)).toHaveLength(2);
  });

  it('a send to a deleted contact brings it back as a new contact', async () => {
    const { t, account, call } = await setUp();
    await call('POST', '/api/v2/contacts', { number: ALICE, first_name: 'Gone' });
    await call('DELETE', `/api/v2/contacts/${ALICE}`);
    expect((await call('POST', '/api/send-message', { number: ALICE, content: 'back' })).status).toBe(202);
    expect((await call('GET', `/api/v2/contacts/${ALICE}`)).body.contact.first_name).toBe('');
    expect(await contactEvents(t, account)).toHaveLength(2);
  });

  it('bulk delete takes numbers (with or without +) and contact_ids, skips unknown ones, refuses an empty list', async () => {
    const { call } = await setUp();
    await call('POST', '/api/v2/contacts/bulk', { contacts: [{ phone: ALICE }, { phone: BOB }, { phone: CAROL }] });
    const bob = (await call('GET', `/api/v2/contacts/${BOB}`)).body.contact;
    const deleted = await call('DELETE', '/api/v2/contacts', {
      contact_ids: [ALICE, bob.contact_id, '+14155550199', 'nobody', ALICE.slice(1)],
    });
    expect(deleted.body).toEqual({ status: 'OK', amount: 2 });
    expect((await call('GET', '/api/v2/contacts')).body.map((c: any) => c.phone)).toEqual([CAROL]);
    const empty = await call('DELETE', '/api/v2/contacts', { contact_ids: [] });
    expect(empty.status).toBe(400);
    expect(empty.body.error_message).toMatch(/contact_ids/);
  });
});

describe('contacts.bulk.create', () => {
  it('creates in input order, each announced', async () => {
    const { t, account, call } = await setUp();
    await subscribeToContacts(t, account);
    const reply = await call('POST', '/api/v2/contacts/bulk', {
      contacts: [
        { phone: BOB, first_name: 'Bob', tags: ['t'] },
        { phone: ALICE, custom_variables: { k: 'v' } },
      ],
    });
    expect(reply.status, show(reply.body)).toBe(200);
    expect(reply.body.status).toBe('OK');
    expect(reply.body.contacts.map((c: any) => [c.phone, c.first_name])).toEqual([
      [BOB, 'Bob'],
      [ALICE, ''],
    ]);
    expect(contactDeliveries(t).map((c) => c.phone)).toEqual([BOB, ALICE]);
  });

  it('is all or nothing: an invalid item 400, a duplicate 409, error_detail names the item', async () => {
    const { call } = await setUp();
    await call('POST', '/api/v2/contacts', { number: CAROL });
    const invalid = await call('POST', '/api/v2/contacts/bulk', { contacts: [{ phone: ALICE }, { phone: 'nope' }] });
    expect(invalid.status).toBe(400);
    expect(invalid.body).toMatchObject({ error_code: 4000, error_detail: 'contacts[1]' });
    expect(invalid.body.error_message).toMatch(/contacts\[1\]: phone must be an E.164/);
    const twice = await call('POST', '/api/v2/contacts/bulk', { contacts: [{ phone: ALICE }, { phone: BOB }, { phone: ALICE }] });
    expect(twice.status).toBe(409);
    expect(twice.headers.get('x-should-retry')).toBe('false');
    expect(twice.body).toMatchObject({ error_code: 4090, error_detail: 'contacts[2]' });
    const existing = await call('POST', '/api/v2/contacts/bulk', { contacts: [{ phone: ALICE }, { phone: CAROL }] });
    expect(existing.status).toBe(409);
    expect(existing.body.error_detail).toBe('contacts[1]');
    expect((await call('GET', '/api/v2/contacts/count')).body).toEqual({ count: 1 });
    expect((await call('POST', '/api/v2/contacts/bulk', { contacts: [] })).status).toBe(400);
  });
});

describe('contacts.optOut', () => {
  it('creates an unknown number opted out, refuses sends to it, and opts back in', async () => {
    const { t, account, call } = await setUp();
    await subscribeToContacts(t, account);
    const out = await call('POST', '/api/v2/contacts/opt-out', { number: ALICE });
    expect(out.body).toEqual({ status: 'OK', number: ALICE, opted_out: true });
    expect(contactDeliveries(t)).toMatchObject([{ phone: ALICE, opt_out: true }]);
    const refused = await call('POST', '/api/send-message', { number: ALICE, content: 'hi' });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ error_code: 4000 });
    expect(refused.body.error_message).toContain('opted out');
    const group = await call('POST', '/api/send-group-message', { numbers: [ALICE, BOB], content: 'hi all' });
    expect(group.status).toBe(400);
    expect(group.body.error_message).toContain('opted out');
    expect((await call('GET', '/accounts/messages')).body.messages).toEqual([]);

    const back = await call('POST', '/api/v2/contacts/opt-out', { number: ALICE, opted_out: false });
    expect(back.body.opted_out).toBe(false);
    expect((await call('POST', '/api/send-message', { number: ALICE, content: 'hi' })).status).toBe(202);
  });
});

/** A provider that accepts every call (or refuses, when told) and records what it was sent. */
function fakeProvider(status = 200): ProviderApi & { calls: ProviderRequest[] } {
  const calls: ProviderRequest[] = [];
  return {
    calls,
    async call(request) {
      calls.push(request);
      return new ProviderAnswer(status, { status: status < 300 ? 'OK' : 'ERROR', from: 'provider' });
    },
  };
}

describe('relay mode', () => {
  it('forwards writes at the SDK path and verb with the body as sent, records them, and answers from the record', async () => {
    const provider = fakeProvider();
    const t = makeTestApp({ provider });
    const account = await t.createAccount();
    const call = (method: string, path: string, body?: unknown) => t.call(method, path, account, body);

    const created = await call('POST', '/api/v2/contacts', { number: ALICE, firstName: 'Al' });
    expect(created.body).toMatchObject({ status: 'OK', contact: { phone: ALICE, first_name: 'Al' } });
    await call('PUT', `/api/v2/contacts/${ALICE}`, { last_name: 'L' });
    await call('POST', '/api/v2/contacts/bulk', { contacts: [{ phone: BOB }] });
    await call('POST', '/api/v2/contacts/opt-out', { number: CAROL });
    await call('DELETE', `/api/v2/contacts/${BOB}`);
    await call('DELETE', '/api/v2/contacts', { contact_ids: [CAROL] });
    expect(provider.calls).toEqual([
      { method: 'POST', path: '/api/v2/contacts', body: { number: ALICE, firstName: 'Al' } },
      { method: 'PUT', path: `/api/v2/contacts/${ALICE}`, body: { last_name: 'L' } },
      { method: 'POST', path: '/api/v2/contacts/bulk', body: { contacts: [{ phone: BOB }] } },
      { method: 'POST', path: '/api/v2/contacts/opt-out', body: { number: CAROL } },
      { method: 'DELETE', path: `/api/v2/contacts/${BOB}` },
      { method: 'DELETE', path: '/api/v2/contacts', body: { contact_ids: [CAROL] } },
    ]);
    const local = await call('GET', '/api/v2/contacts');
    expect(local.body.map((c: any) => [c.phone, c.first_name, c.last_name])).toEqual([[ALICE, 'Al', 'L']]);
    expect(provider.calls).toHaveLength(6);
  });

  it('reaches a real provider over HTTP: the number stays literal in the path, DELETE carries its JSON body', async () => {
    const upstream = await startFakeUpstream((request) => ({ status: 200, body: { status: 'OK', echoed: request.path } }));
    const providers = createProviderAccounts({
      url: upstream.url,
      relay: { keyId: 'relay-key', secret: 'relay-secret' },
      outboundPolicy: LOOPBACK_ALLOWED,
    });
    try {
      const t = makeTestApp({ providers });
      const account = await t.createAccount();
      await t.call('POST', '/api/v2/contacts', account, { number: ALICE });
      const updated = await t.call('PUT', `/api/v2/contacts/${ALICE}`, account, { first_name: 'Al' });
      expect(updated.body).toMatchObject({ status: 'OK', contact: { phone: ALICE, first_name: 'Al' } });
      await t.call('DELETE', '/api/v2/contacts', account, { contact_ids: [ALICE] });
      expect(upstream.requests.map((request) => [request.method, request.path, request.body])).toEqual([
        ['POST', '/api/v2/contacts', { number: ALICE }],
        ['PUT', `/api/v2/contacts/${ALICE}`, { first_name: 'Al' }],
        ['DELETE', '/api/v2/contacts', { contact_ids: [ALICE] }],
      ]);
      expect(upstream.requests[0]!.headers['sb-api-key-id']).toBe('relay-key');
      expect((await t.call('GET', '/api/v2/contacts/count', account)).body).toEqual({ count: 0 });
    } finally {
      await providers.close();
      await upstream.close();
    }
  });

  it('records nothing when the provider refuses, and returns its answer; the tenant’s own list decides 404 and 409', async () => {
    const provider = fakeProvider(409);
    const t = makeTestApp({ provider });
    const account = await t.createAccount();
    const reply = await t.call('POST', '/api/v2/contacts', account, { number: ALICE });
    expect(reply.status).toBe(409);
    expect(reply.body).toEqual({ status: 'ERROR', from: 'provider' });
    expect((await t.call('GET', '/api/v2/contacts/count', account)).body).toEqual({ count: 0 });
    expect(provider.calls).toHaveLength(1);
    expect((await t.call('PUT', `/api/v2/contacts/${ALICE}`, account, { first_name: 'A' })).status).toBe(404);
    expect(provider.calls).toHaveLength(1);
  });
});

describe('contacts.list query plans', () => {
  for (const orderBy of ['created_at', 'updated_at', 'phone', 'first_name', 'last_name']) {
    for (const direction of ['asc', 'desc']) {
      it(`order_by=${orderBy} ${direction} searches an index of the account and needs no sort`, async () => {
        const { t, call } = await setUp();
        for (const number of [ALICE, BOB, CAROL]) await call('POST', '/api/v2/contacts', { number });
        const path = `/api/v2/contacts?order_by=${orderBy}&order_direction=${direction}&limit=10&offset=1`;
        const statements = await captureStatements(t.db, () => call('GET', path));
        const listing = statements.find((statement) => /^select/i.test(statement.sql) && statement.sql.includes('from "contacts"'));
        expect(listing, show(statements.map((statement) => statement.sql))).toBeDefined();
        expectIndexed(explain(t.db, listing!), 'contacts', `${path}\n${listing!.sql}`, { noTempSort: true });
      });
    }
  }
});
