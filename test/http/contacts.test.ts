import { describe, expect, it } from 'vitest';
import { makeTestApp, type TestAccount, type TestApp } from '../helpers/app.ts';
import { readReply } from '../helpers/http.ts';

/**
 * Contacts API through app.request: create, get, list, the derived conversation fields and the
 * credential checks. Every test builds its own app on a fresh in-memory database.
 */

const AUTH_ERROR = {
  status: 'ERROR',
  error_code: 4010,
  error_message: 'Invalid or missing API credentials',
  message: 'Invalid or missing API credentials',
  error_detail: null,
};

/** 2026-11-23T09:30:00Z, where the fake clock starts. */
const START_ISO = '2026-11-23T09:30:00.000Z';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

async function setup(options: Parameters<typeof makeTestApp>[0] = {}) {
  const t = makeTestApp(options);
  const account = await t.createAccount();
  return { t, account };
}

/** Distinct valid US numbers: +1 415 200 0000 + i. */
function numberFor(i: number): string {
  return `+1415${String(2_000_000 + i)}`;
}

async function createContactOk(
  t: TestApp,
  account: TestAccount,
  body: { firstName: string; lastName: string; number: string; companyName?: string },
): Promise<string> {
  const res = await t.call('POST', '/accounts/contacts', account, body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(typeof res.body.contact, JSON.stringify(res.body)).toBe('string');
  return res.body.contact as string;
}

async function listAll(t: TestApp, account: TestAccount): Promise<any[]> {
  const res = await t.call('GET', '/accounts/contacts?limit=1000', account);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(Array.isArray(res.body), JSON.stringify(res.body)).toBe(true);
  return res.body as any[];
}

async function getContactOk(t: TestApp, account: TestAccount, id: string): Promise<any> {
  const res = await t.call('GET', `/accounts/contacts/${encodeURIComponent(id)}`, account);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.status, JSON.stringify(res.body)).toBe('OK');
  return res.body.contact;
}

async function sendOk(t: TestApp, account: TestAccount, body: Record<string, unknown>) {
  const res = await t.call('POST', '/api/send-message', account, body);
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return res.body;
}

/** A raw request, for bodies and headers the JSON helper cannot produce. */
async function raw(t: TestApp, path: string, init: { method: string; headers?: Record<string, string>; body?: string }) {
  return readReply(await t.app.request(path, init));
}

/** The spec's contact error shape: exactly {status, message}, message a non-empty string. */
function expectContactValidationError(res: { status: number; body: any }) {
  const dump = JSON.stringify(res.body);
  expect(res.status, dump).toBe(400);
  expect(res.body?.status, dump).toBe('ERROR');
  expect(typeof res.body?.message, dump).toBe('string');
  expect(res.body.message.length, dump).toBeGreaterThan(0);
  expect(Object.keys(res.body).sort(), dump).toEqual(['message', 'status']);
}

const alice = { firstName: 'Alice', lastName: 'Liddell', number: '+14155550100', companyName: 'Wonderland Ltd' };

describe('POST /accounts/contacts', () => {
  it('creates a contact and answers {status, contact, contactData}', async () => {
    const { t, account } = await setup();
    const res = await t.call('POST', '/accounts/contacts', account, alice);
    const dump = JSON.stringify(res.body);
    expect(res.status, dump).toBe(200);
    expect(res.body, dump).toEqual({
      status: 'OK',
      contact: expect.any(String),
      contactData: {
        account_email: account.email,
        firstName: 'Alice',
        lastName: 'Liddell',
        phone: '+14155550100',
        displayPhone: '+1 415 555 0100',
        companyName: 'Wonderland Ltd',
      },
    });
    expect(res.body.contact.length, dump).toBeGreaterThan(0);

    const stored = await getContactOk(t, account, res.body.contact);
    expect(stored.cid, JSON.stringify(stored)).toBe(res.body.contact);
    expect(stored, JSON.stringify(stored)).toMatchObject({
      firstName: 'Alice',
      lastName: 'Liddell',
      companyName: 'Wonderland Ltd',
      phone: '+14155550100',
    });
  });

  it('normalizes a number written with separators to E.164', async () => {
    const { t, account } = await setup();
    const res = await t.call('POST', '/accounts/contacts', account, { ...alice, number: '+1 (415) 555-0100' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.contactData.phone, JSON.stringify(res.body)).toBe('+14155550100');
    expect(res.body.contactData.displayPhone, JSON.stringify(res.body)).toBe('+1 415 555 0100');
    const list = await listAll(t, account);
    expect(
      list.map((c) => c.phone),
      JSON.stringify(list),
    ).toEqual(['+14155550100']);
  });

  it('formats a non-US number in international form', async () => {
    const { t, account } = await setup();
    const res = await t.call('POST', '/accounts/contacts', account, {
      firstName: 'Sherlock',
      lastName: 'Holmes',
      number: '+44 20 7946 0958',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.contactData.phone, JSON.stringify(res.body)).toBe('+442079460958');
    expect(res.body.contactData.displayPhone, JSON.stringify(res.body)).toBe('+44 20 7946 0958');
  });

  it('treats companyName as optional, defaulting to an empty string', async () => {
    const { t, account } = await setup();
    const res = await t.call('POST', '/accounts/contacts', account, {
      firstName: 'Bob',
      lastName: 'Builder',
      number: '+14155550101',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.contactData, JSON.stringify(res.body)).toEqual({
      account_email: account.email,
      firstName: 'Bob',
      lastName: 'Builder',
      phone: '+14155550101',
      displayPhone: '+1 415 555 0101',
      companyName: '',
    });
    const stored = await getContactOk(t, account, res.body.contact);
    expect(stored.companyName, JSON.stringify(stored)).toBe('');
  });

  it('accepts non-ASCII names unchanged', async () => {
    const { t, account } = await setup();
    const res = await t.call('POST', '/accounts/contacts', account, {
      firstName: 'José',
      lastName: 'Müller-Ødegård 李',
      number: '+14155550102',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.contactData.firstName, JSON.stringify(res.body)).toBe('José');
    expect(res.body.contactData.lastName, JSON.stringify(res.body)).toBe('Müller-Ødegård 李');
  });

  it('gives every contact its own identifier', async () => {
    const { t, account } = await setup();
    const a = await createContactOk(t, account, { ...alice, number: numberFor(1) });
    const b = await createContactOk(t, account, { ...alice, number: numberFor(2) });
    expect(a).not.toBe(b);
  });

  describe('errors', () => {
    it('refuses a duplicate (same account, same number) with 409 and keeps the first contact', async () => {
      const { t, account } = await setup();
      const id = await createContactOk(t, account, alice);
      const before = await listAll(t, account);

      const dup = await t.call('POST', '/accounts/contacts', account, {
        firstName: 'Other',
        lastName: 'Person',
        number: '+14155550100',
        companyName: 'Else',
      });
      expect(dup.status, JSON.stringify(dup.body)).toBe(409);
      expect(dup.body, JSON.stringify(dup.body)).toEqual({ status: 'ERROR', message: 'Contact already exists' });

      const after = await listAll(t, account);
      expect(after, JSON.stringify(after)).toEqual(before);
      const stored = await getContactOk(t, account, id);
      expect(stored, JSON.stringify(stored)).toMatchObject({ firstName: 'Alice', lastName: 'Liddell', companyName: 'Wonderland Ltd' });
    });

    it('refuses a duplicate written differently (separators) with 409', async () => {
      const { t, account } = await setup();
      await createContactOk(t, account, alice);
      const before = await listAll(t, account);
      for (const written of ['+1 (415) 555-0100', '+1-415-555-0100', ' +1 415.555.0100 ']) {
        const dup = await t.call('POST', '/accounts/contacts', account, { ...alice, number: written });
        expect(dup.status, `${written}: ${JSON.stringify(dup.body)}`).toBe(409);
        expect(dup.body, JSON.stringify(dup.body)).toEqual({ status: 'ERROR', message: 'Contact already exists' });
      }
      expect(await listAll(t, account)).toEqual(before);
    });

    it('refuses a contact for a number that messaging already made a contact', async () => {
      const { t, account } = await setup();
      await sendOk(t, account, { number: '+14155550100', content: 'hi' });
      const before = await listAll(t, account);
      const dup = await t.call('POST', '/accounts/contacts', account, alice);
      expect(dup.status, JSON.stringify(dup.body)).toBe(409);
      expect(dup.body, JSON.stringify(dup.body)).toEqual({ status: 'ERROR', message: 'Contact already exists' });
      expect(await listAll(t, account)).toEqual(before);
    });

    for (const number of ['12345abc', '+15555550100', '4155550100', '', 'not a number', '+1415555010', '911', '+911']) {
      it(`refuses the invalid number ${JSON.stringify(number)} with 400 Invalid phone number`, async () => {
        const { t, account } = await setup();
        await createContactOk(t, account, { ...alice, number: numberFor(0) });
        const before = await listAll(t, account);
        const res = await t.call('POST', '/accounts/contacts', account, { ...alice, number });
        expect(res.status, JSON.stringify(res.body)).toBe(400);
        expect(res.body, JSON.stringify(res.body)).toEqual({ status: 'ERROR', message: 'Invalid phone number' });
        expect(await listAll(t, account)).toEqual(before);
      });
    }

    const badBodies: Array<[string, unknown]> = [
      ['firstName missing', { lastName: 'Liddell', number: '+14155550100' }],
      ['lastName missing', { firstName: 'Alice', number: '+14155550100' }],
      ['number missing', { firstName: 'Alice', lastName: 'Liddell' }],
      ['number as an integer', { firstName: 'Alice', lastName: 'Liddell', number: 14155550100 }],
      ['number null', { firstName: 'Alice', lastName: 'Liddell', number: null }],
      ['firstName as a number', { firstName: 42, lastName: 'Liddell', number: '+14155550100' }],
      ['lastName as an object', { firstName: 'Alice', lastName: { x: 1 }, number: '+14155550100' }],
      ['companyName as a boolean', { ...alice, companyName: true }],
      ['firstName longer than 200 characters', { ...alice, firstName: 'a'.repeat(201) }],
      ['an empty object', {}],
      ['an array', [alice]],
      ['a JSON string', 'Alice'],
      ['JSON null', null],
    ];
    for (const [label, body] of badBodies) {
      it(`refuses a body with ${label} with 400 {status:'ERROR', message}`, async () => {
        const { t, account } = await setup();
        await createContactOk(t, account, { ...alice, number: numberFor(0) });
        const before = await listAll(t, account);
        const res = await t.call('POST', '/accounts/contacts', account, body);
        expectContactValidationError(res);
        expect(await listAll(t, account)).toEqual(before);
      });
    }

    it('names the missing field in the message', async () => {
      const { t, account } = await setup();
      const res = await t.call('POST', '/accounts/contacts', account, { lastName: 'Liddell', number: '+14155550100' });
      expectContactValidationError(res);
      expect(res.body.message, JSON.stringify(res.body)).toContain('firstName');
    });

    for (const text of ['{"firstName": "Alice", ', '{firstName: Alice}', 'not json at all', '']) {
      it(`refuses malformed JSON ${JSON.stringify(text)} with 400`, async () => {
        const { t, account } = await setup();
        await createContactOk(t, account, { ...alice, number: numberFor(0) });
        const before = await listAll(t, account);
        const res = await raw(t, '/accounts/contacts', {
          method: 'POST',
          headers: { ...account.headers, 'content-type': 'application/json' },
          body: text,
        });
        expectContactValidationError(res);
        expect(await listAll(t, account)).toEqual(before);
      });
    }

    it('refuses a body that is not JSON (no content-type) with 400 and writes nothing', async () => {
      const { t, account } = await setup();
      const res = await raw(t, '/accounts/contacts', {
        method: 'POST',
        headers: { ...account.headers },
        body: JSON.stringify(alice),
      });
      expectContactValidationError(res);
      expect(await listAll(t, account)).toEqual([]);
    });

    it('refuses a body over 1 MiB with 413 and writes nothing', async () => {
      const { t, account } = await setup();
      const res = await t.call('POST', '/accounts/contacts', account, { ...alice, companyName: 'x'.repeat(1024 * 1024 + 10) });
      expect(res.status, JSON.stringify(res.body).slice(0, 500)).toBe(413);
      expect(await listAll(t, account)).toEqual([]);
    });

    it('answers a body over 1 MiB in the contact error shape {status, message}', async () => {
      // Contract §3: contact endpoints keep the spec's {status, message} bodies.
      const { t, account } = await setup();
      const res = await t.call('POST', '/accounts/contacts', account, { ...alice, companyName: 'x'.repeat(1024 * 1024 + 10) });
      const dump = JSON.stringify(res.body).slice(0, 500);
      expect(res.status, dump).toBe(413);
      expect(res.body, dump).toEqual({ status: 'ERROR', message: expect.any(String) });
    });

    it('answers an internal failure with 500 {status:ERROR, message} without leaking details', async () => {
      const { t, account } = await setup();
      t.db.$client.exec(
        "CREATE TRIGGER contacts_boom BEFORE INSERT ON contacts BEGIN SELECT RAISE(ABORT, 'secret detail /var/lib/db'); END;",
      );
      const res = await t.call('POST', '/accounts/contacts', account, alice);
      const dump = JSON.stringify(res.body);
      expect(res.status, dump).toBe(500);
      expect(res.body, dump).toEqual({ status: 'ERROR', message: expect.any(String) });
      expect(dump).not.toContain('secret detail');
      expect(dump).not.toContain('/var/lib/db');
      expect(await listAll(t, account)).toEqual([]);
    });
  });

  describe('isolation between accounts', () => {
    it('allows the same number in two different accounts', async () => {
      const t = makeTestApp();
      const one = await t.createAccount();
      const two = await t.createAccount();
      const a = await t.call('POST', '/accounts/contacts', one, alice);
      const b = await t.call('POST', '/accounts/contacts', two, { ...alice, number: '+1 (415) 555-0100', firstName: 'Alicia' });
      expect(a.status, JSON.stringify(a.body)).toBe(200);
      expect(b.status, JSON.stringify(b.body)).toBe(200);
      expect(a.body.contact).not.toBe(b.body.contact);
      expect(a.body.contactData.account_email).toBe(one.email);
      expect(b.body.contactData.account_email).toBe(two.email);

      const listOne = await listAll(t, one);
      const listTwo = await listAll(t, two);
      expect(
        listOne.map((c) => c.cid),
        JSON.stringify(listOne),
      ).toEqual([a.body.contact]);
      expect(
        listTwo.map((c) => c.cid),
        JSON.stringify(listTwo),
      ).toEqual([b.body.contact]);
      expect(listOne[0].firstName).toBe('Alice');
      expect(listTwo[0].firstName).toBe('Alicia');
    });
  });
});

describe('GET /accounts/contacts/:contact_id', () => {
  it('answers {status:OK, contact} with every read field', async () => {
    const { t, account } = await setup();
    const id = await createContactOk(t, account, alice);
    const res = await t.call('GET', `/accounts/contacts/${id}`, account);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body, JSON.stringify(res.body)).toEqual({
      status: 'OK',
      contact: {
        cid: id,
        account_email: account.email,
        displayPhone: '+1 415 555 0100',
        phone: '+14155550100',
        is_unread: false,
        displayDate: '',
        previewText: '',
        last_date: '',
        firstName: 'Alice',
        lastName: 'Liddell',
        companyName: 'Wonderland Ltd',
      },
    });
  });

  for (const unknown of ['does-not-exist', '00000000-0000-0000-0000-000000000000', "x' OR '1'='1"]) {
    it(`answers 404 {status:'error', message:'Contact not found'} for the unknown id ${JSON.stringify(unknown)}`, async () => {
      const { t, account } = await setup();
      await createContactOk(t, account, alice);
      const res = await t.call('GET', `/accounts/contacts/${encodeURIComponent(unknown)}`, account);
      expect(res.status, JSON.stringify(res.body)).toBe(404);
      expect(res.body, JSON.stringify(res.body)).toEqual({ status: 'error', message: 'Contact not found' });
    });
  }

  it("answers the same 404 for another account's contact (no leak)", async () => {
    const t = makeTestApp();
    const owner = await t.createAccount();
    const stranger = await t.createAccount();
    const id = await createContactOk(t, owner, alice);
    const res = await t.call('GET', `/accounts/contacts/${id}`, stranger);
    expect(res.status, JSON.stringify(res.body)).toBe(404);
    expect(res.body, JSON.stringify(res.body)).toEqual({ status: 'error', message: 'Contact not found' });
    // The owner still sees it.
    await getContactOk(t, owner, id);
  });
});

describe('GET /accounts/contacts', () => {
  it('answers a bare JSON array (empty when there are no contacts)', async () => {
    const { t, account } = await setup();
    const empty = await t.call('GET', '/accounts/contacts', account);
    expect(empty.status, JSON.stringify(empty.body)).toBe(200);
    expect(empty.body, JSON.stringify(empty.body)).toEqual([]);

    const id = await createContactOk(t, account, alice);
    const one = await t.call('GET', '/accounts/contacts', account);
    expect(one.status, JSON.stringify(one.body)).toBe(200);
    expect(one.body, JSON.stringify(one.body)).toEqual([
      {
        cid: id,
        account_email: account.email,
        firstName: 'Alice',
        lastName: 'Liddell',
        companyName: 'Wonderland Ltd',
        phone: '+14155550100',
        displayPhone: '+1 415 555 0100',
        is_unread: false,
        displayDate: '',
        previewText: '',
        last_date: '',
      },
    ]);
  });

  it('lists only the caller’s contacts', async () => {
    const t = makeTestApp();
    const one = await t.createAccount();
    const two = await t.createAccount();
    const a1 = await createContactOk(t, one, { ...alice, number: numberFor(1) });
    const a2 = await createContactOk(t, one, { ...alice, number: numberFor(2) });
    const b1 = await createContactOk(t, two, { ...alice, number: numberFor(3) });
    await sendOk(t, two, { number: numberFor(4), content: 'hello' });

    const listOne = await listAll(t, one);
    expect(listOne.map((c) => c.cid).sort(), JSON.stringify(listOne)).toEqual([a1, a2].sort());
    expect(
      listOne.every((c) => c.account_email === one.email),
      JSON.stringify(listOne),
    ).toBe(true);

    const listTwo = await listAll(t, two);
    expect(listTwo.map((c) => c.phone).sort(), JSON.stringify(listTwo)).toEqual([numberFor(3), numberFor(4)].sort());
    expect(
      listTwo.map((c) => c.cid),
      JSON.stringify(listTwo),
    ).toContain(b1);
    expect(
      listTwo.every((c) => c.account_email === two.email),
      JSON.stringify(listTwo),
    ).toBe(true);
  });

  describe('ordering', () => {
    /**
     * Created in the order Bob, Carol, Alice; messaged in the order Carol, Alice, Bob; so every
     * order_by gives a different sequence.
     */
    async function threeContacts() {
      const { t, account } = await setup();
      const people = [
        { firstName: 'Bob', lastName: 'Zimmer', number: numberFor(1) },
        { firstName: 'Carol', lastName: 'Young', number: numberFor(2) },
        { firstName: 'Alice', lastName: 'Xu', number: numberFor(3) },
      ];
      for (const person of people) {
        await createContactOk(t, account, person);
        t.clock.advance(1000);
      }
      for (const number of [numberFor(2), numberFor(3), numberFor(1)]) {
        t.clock.advance(MINUTE);
        await sendOk(t, account, { number, content: `hi ${number}` });
      }
      const names = async (query: string) => {
        const res = await t.call('GET', `/accounts/contacts${query}`, account);
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        return (res.body as any[]).map((c) => c.firstName);
      };
      return { t, account, names };
    }

    it('defaults to last_date desc', async () => {
      const { names } = await threeContacts();
      expect(await names('')).toEqual(['Bob', 'Alice', 'Carol']);
      expect(await names('?order_by=last_date')).toEqual(['Bob', 'Alice', 'Carol']);
      expect(await names('?order_direction=desc')).toEqual(['Bob', 'Alice', 'Carol']);
    });

    it('orders by last_date asc', async () => {
      const { names } = await threeContacts();
      expect(await names('?order_by=last_date&order_direction=asc')).toEqual(['Carol', 'Alice', 'Bob']);
      expect(await names('?order_direction=asc')).toEqual(['Carol', 'Alice', 'Bob']);
    });

    it('orders by firstName asc and desc', async () => {
      const { names } = await threeContacts();
      expect(await names('?order_by=firstName&order_direction=asc')).toEqual(['Alice', 'Bob', 'Carol']);
      expect(await names('?order_by=firstName&order_direction=desc')).toEqual(['Carol', 'Bob', 'Alice']);
      expect(await names('?order_by=firstName')).toEqual(['Carol', 'Bob', 'Alice']);
    });

    it('orders by lastName asc and desc', async () => {
      const { names } = await threeContacts();
      expect(await names('?order_by=lastName&order_direction=asc')).toEqual(['Alice', 'Carol', 'Bob']);
      expect(await names('?order_by=lastName&order_direction=desc')).toEqual(['Bob', 'Carol', 'Alice']);
    });

    it('orders by created_at asc and desc', async () => {
      const { names } = await threeContacts();
      expect(await names('?order_by=created_at&order_direction=asc')).toEqual(['Bob', 'Carol', 'Alice']);
      expect(await names('?order_by=created_at&order_direction=desc')).toEqual(['Alice', 'Carol', 'Bob']);
    });

    it('puts contacts never messaged after the messaged ones in the default order', async () => {
      const { t, account } = await setup();
      const quiet = await createContactOk(t, account, { firstName: 'Quiet', lastName: 'One', number: numberFor(1) });
      t.clock.advance(1000);
      const chatty = await createContactOk(t, account, { firstName: 'Chatty', lastName: 'One', number: numberFor(2) });
      t.clock.advance(1000);
      await sendOk(t, account, { number: numberFor(2), content: 'hey' });
      const list = await listAll(t, account);
      expect(
        list.map((c) => c.cid),
        JSON.stringify(list),
      ).toEqual([chatty, quiet]);
    });

    it('moves a contact to the top of the default order when it is messaged again', async () => {
      const { t, account, names } = await threeContacts();
      t.clock.advance(MINUTE);
      await sendOk(t, account, { number: numberFor(2), content: 'again' });
      expect(await names('')).toEqual(['Carol', 'Bob', 'Alice']);
    });
  });

  describe('pagination', () => {
    it('pages with limit/offset without overlap and covering everything (created_at asc)', async () => {
      const { t, account } = await setup();
      const ids: string[] = [];
      for (let i = 0; i < 7; i++) {
        ids.push(await createContactOk(t, account, { firstName: `P${i}`, lastName: 'X', number: numberFor(i) }));
        t.clock.advance(1000);
      }
      const pages: string[][] = [];
      for (const offset of [0, 3, 6]) {
        const res = await t.call('GET', `/accounts/contacts?order_by=created_at&order_direction=asc&limit=3&offset=${offset}`, account);
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        pages.push((res.body as any[]).map((c) => c.cid));
      }
      expect(pages.map((p) => p.length)).toEqual([3, 3, 1]);
      expect(pages.flat()).toEqual(ids);
      expect(new Set(pages.flat()).size).toBe(7);
    });

    it('pages stably when the ordered field ties (default order, nobody messaged)', async () => {
      const { t, account } = await setup();
      const ids: string[] = [];
      for (let i = 0; i < 9; i++) {
        ids.push(await createContactOk(t, account, { firstName: 'Same', lastName: 'Name', number: numberFor(i) }));
      }
      const seen: string[] = [];
      for (let offset = 0; offset < 9; offset += 2) {
        const res = await t.call('GET', `/accounts/contacts?limit=2&offset=${offset}`, account);
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        const page = (res.body as any[]).map((c) => c.cid);
        expect(page.length).toBe(offset === 8 ? 1 : 2);
        seen.push(...page);
      }
      expect(new Set(seen).size, JSON.stringify(seen)).toBe(9);
      expect([...seen].sort()).toEqual([...ids].sort());

      const firstNamePages: string[] = [];
      for (let offset = 0; offset < 9; offset += 4) {
        const res = await t.call('GET', `/accounts/contacts?order_by=firstName&limit=4&offset=${offset}`, account);
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        firstNamePages.push(...(res.body as any[]).map((c) => c.cid));
      }
      expect(new Set(firstNamePages).size, JSON.stringify(firstNamePages)).toBe(9);
    });

    it('answers an empty array for an offset past the end', async () => {
      const { t, account } = await setup();
      await createContactOk(t, account, alice);
      const res = await t.call('GET', '/accounts/contacts?offset=5', account);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body, JSON.stringify(res.body)).toEqual([]);
    });

    it('defaults limit to 100', async () => {
      const { t, account } = await setup();
      for (let i = 0; i < 105; i++) {
        await createContactOk(t, account, { firstName: `N${i}`, lastName: 'L', number: numberFor(i) });
      }
      const page = await t.call('GET', '/accounts/contacts', account);
      expect(page.status, JSON.stringify(page.body).slice(0, 300)).toBe(200);
      expect((page.body as any[]).length).toBe(100);
      const rest = await t.call('GET', '/accounts/contacts?offset=100', account);
      expect((rest.body as any[]).length).toBe(5);
      expect(new Set([...page.body, ...rest.body].map((c: any) => c.cid)).size).toBe(105);
      expect((await listAll(t, account)).length).toBe(105);
    });

    it('accepts (clamps) a limit above 1000', async () => {
      const { t, account } = await setup();
      await createContactOk(t, account, alice);
      const res = await t.call('GET', '/accounts/contacts?limit=5000', account);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect((res.body as any[]).length).toBe(1);
    });
  });

  describe('invalid query parameters', () => {
    const badQueries = [
      'limit=abc',
      'limit=0',
      'limit=-1',
      'limit=1.5',
      'offset=-1',
      'offset=abc',
      'order_by=phone',
      'order_by=cid',
      'order_direction=up',
      'order_by=firstName&order_direction=sideways',
    ];
    for (const query of badQueries) {
      it(`refuses ?${query} with 400 {status:'ERROR', message}`, async () => {
        const { t, account } = await setup();
        await createContactOk(t, account, alice);
        const res = await t.call('GET', `/accounts/contacts?${query}`, account);
        expectContactValidationError(res);
      });
    }
  });
});

describe('derived conversation fields', () => {
  it('a contact without messages has empty last_date, displayDate and previewText, and is not unread', async () => {
    const { t, account } = await setup();
    const id = await createContactOk(t, account, alice);
    const contact = await getContactOk(t, account, id);
    expect(contact, JSON.stringify(contact)).toMatchObject({ last_date: '', displayDate: '', previewText: '', is_unread: false });
  });

  it('an outbound message sets previewText, last_date and displayDate and leaves it read', async () => {
    const { t, account } = await setup();
    const id = await createContactOk(t, account, alice);
    await sendOk(t, account, { number: '+14155550100', content: 'See you at 10' });
    const contact = await getContactOk(t, account, id);
    expect(contact, JSON.stringify(contact)).toMatchObject({
      cid: id,
      previewText: 'See you at 10',
      last_date: START_ISO,
      displayDate: '11/23/26 9:30 AM',
      is_unread: false,
    });
    const list = await listAll(t, account);
    expect(list[0], JSON.stringify(list)).toMatchObject({
      cid: id,
      previewText: 'See you at 10',
      last_date: START_ISO,
      displayDate: '11/23/26 9:30 AM',
    });
  });

  it('a later message replaces the preview and dates (PM and minutes formatting)', async () => {
    const { t, account } = await setup();
    const id = await createContactOk(t, account, alice);
    await sendOk(t, account, { number: '+14155550100', content: 'first' });
    t.clock.advance(5 * HOUR + 7 * MINUTE);
    await sendOk(t, account, { number: '+14155550100', content: 'second' });
    const contact = await getContactOk(t, account, id);
    expect(contact, JSON.stringify(contact)).toMatchObject({
      previewText: 'second',
      last_date: '2026-11-23T14:37:00.000Z',
      displayDate: '11/23/26 2:37 PM',
    });
  });

  it('formats midnight as 12 AM with single-digit month and day', async () => {
    const { t, account } = await setup();
    const id = await createContactOk(t, account, alice);
    t.clock.set(Date.UTC(2027, 0, 5, 0, 5, 0));
    await sendOk(t, account, { number: '+14155550100', content: 'late' });
    const contact = await getContactOk(t, account, id);
    expect(contact.displayDate, JSON.stringify(contact)).toBe('1/5/27 12:05 AM');
    expect(contact.last_date, JSON.stringify(contact)).toBe('2027-01-05T00:05:00.000Z');
  });

  it('a message sent to the number in another spelling updates the same contact', async () => {
    const { t, account } = await setup();
    const id = await createContactOk(t, account, alice);
    await sendOk(t, account, { number: '+1 (415) 555-0100', content: 'formatted' });
    const list = await listAll(t, account);
    expect(
      list.map((c) => c.cid),
      JSON.stringify(list),
    ).toEqual([id]);
    expect(list[0].previewText).toBe('formatted');
  });

  it('a media-only send shows the media URL as previewText', async () => {
    const { t, account } = await setup();
    const id = await createContactOk(t, account, alice);
    await sendOk(t, account, { number: '+14155550100', media_url: 'https://cdn.example.com/a.jpg' });
    const contact = await getContactOk(t, account, id);
    expect(contact, JSON.stringify(contact)).toMatchObject({
      previewText: 'https://cdn.example.com/a.jpg',
      last_date: START_ISO,
      displayDate: '11/23/26 9:30 AM',
      is_unread: false,
    });
  });

  it('a send with both content and media shows the content', async () => {
    const { t, account } = await setup();
    const id = await createContactOk(t, account, alice);
    await sendOk(t, account, { number: '+14155550100', content: 'look', media_url: 'https://cdn.example.com/a.jpg' });
    const contact = await getContactOk(t, account, id);
    expect(contact.previewText, JSON.stringify(contact)).toBe('look');
  });

  it('sending to a number that is not a contact creates one with empty names', async () => {
    const { t, account } = await setup();
    await sendOk(t, account, { number: '+1 415 555 0101', content: 'hello stranger' });
    const list = await listAll(t, account);
    expect(list, JSON.stringify(list)).toEqual([
      {
        cid: expect.any(String),
        account_email: account.email,
        firstName: '',
        lastName: '',
        companyName: '',
        phone: '+14155550101',
        displayPhone: '+1 415 555 0101',
        is_unread: false,
        previewText: 'hello stranger',
        last_date: START_ISO,
        displayDate: '11/23/26 9:30 AM',
      },
    ]);
    const contact = await getContactOk(t, account, list[0].cid);
    expect(contact, JSON.stringify(contact)).toEqual(list[0]);

    // A second message to the same person does not create a second contact.
    t.clock.advance(MINUTE);
    await sendOk(t, account, { number: '+14155550101', content: 'again' });
    const after = await listAll(t, account);
    expect(after.length, JSON.stringify(after)).toBe(1);
    expect(after[0].previewText).toBe('again');
  });

  it('a refused send creates no contact', async () => {
    const { t, account } = await setup();
    const res = await t.call('POST', '/api/send-message', account, { number: '+14155550100' });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(await listAll(t, account)).toEqual([]);
  });

  it('an inbound message after the last outbound makes it unread; the next outbound reads it', async () => {
    const { t, account } = await setup();
    const id = await createContactOk(t, account, alice);
    await sendOk(t, account, { number: '+14155550100', content: 'ping' });
    expect((await getContactOk(t, account, id)).is_unread).toBe(false);

    t.clock.advance(2 * MINUTE);
    await t.store.contacts.recordMessage(id, t.clock.now(), 'hi back', false);
    const unread = await getContactOk(t, account, id);
    expect(unread, JSON.stringify(unread)).toMatchObject({
      is_unread: true,
      previewText: 'hi back',
      last_date: '2026-11-23T09:32:00.000Z',
      displayDate: '11/23/26 9:32 AM',
    });
    const listed = await listAll(t, account);
    expect(listed[0], JSON.stringify(listed)).toMatchObject({ cid: id, is_unread: true, previewText: 'hi back' });

    t.clock.advance(MINUTE);
    await sendOk(t, account, { number: '+14155550100', content: 'pong' });
    const read = await getContactOk(t, account, id);
    expect(read, JSON.stringify(read)).toMatchObject({
      is_unread: false,
      previewText: 'pong',
      last_date: '2026-11-23T09:33:00.000Z',
    });
  });

  it('an inbound message to a contact never messaged makes it unread', async () => {
    const { t, account } = await setup();
    const id = await createContactOk(t, account, alice);
    t.clock.advance(MINUTE);
    await t.store.contacts.recordMessage(id, t.clock.now(), 'hello?', false);
    const contact = await getContactOk(t, account, id);
    expect(contact, JSON.stringify(contact)).toMatchObject({ is_unread: true, previewText: 'hello?', displayDate: '11/23/26 9:31 AM' });
  });

  it('a late-arriving older message changes neither the preview nor the date', async () => {
    const { t, account } = await setup();
    const id = await createContactOk(t, account, alice);
    t.clock.advance(10 * MINUTE);
    await sendOk(t, account, { number: '+14155550100', content: 'newest' });
    await t.store.contacts.recordMessage(id, t.clock.now() - 5 * MINUTE, 'older inbound', false);
    const contact = await getContactOk(t, account, id);
    expect(contact, JSON.stringify(contact)).toMatchObject({
      previewText: 'newest',
      last_date: '2026-11-23T09:40:00.000Z',
      is_unread: false,
    });
  });

  it('shows displayDate in the configured display time zone (last_date stays UTC ISO)', async () => {
    const { t, account } = await setup({ displayTimeZone: 'America/New_York' });
    const id = await createContactOk(t, account, alice);
    await sendOk(t, account, { number: '+14155550100', content: 'zoned' });
    const contact = await getContactOk(t, account, id);
    expect(contact, JSON.stringify(contact)).toMatchObject({ displayDate: '11/23/26 4:30 AM', last_date: START_ISO });
    const list = await listAll(t, account);
    expect(list[0].displayDate, JSON.stringify(list)).toBe('11/23/26 4:30 AM');
  });

  it('a display time zone can move the date to the previous day', async () => {
    const { t, account } = await setup({ displayTimeZone: 'America/Los_Angeles' });
    const id = await createContactOk(t, account, alice);
    t.clock.set(Date.UTC(2026, 10, 24, 3, 15, 0));
    await sendOk(t, account, { number: '+14155550100', content: 'evening' });
    const contact = await getContactOk(t, account, id);
    expect(contact.displayDate, JSON.stringify(contact)).toBe('11/23/26 7:15 PM');
  });
});

describe('authentication on contact endpoints', () => {
  type Endpoint = { label: string; method: string; path: (id: string) => string; body?: unknown };
  const endpoints: Endpoint[] = [
    { label: 'POST /accounts/contacts', method: 'POST', path: () => '/accounts/contacts', body: { ...alice, number: numberFor(9) } },
    { label: 'GET /accounts/contacts', method: 'GET', path: () => '/accounts/contacts' },
    { label: 'GET /accounts/contacts/:id', method: 'GET', path: (id) => `/accounts/contacts/${id}` },
  ];

  function badCredentials(account: TestAccount, other: TestAccount): Array<[string, Record<string, string>]> {
    return [
      ['no headers', {}],
      ['only the key id', { 'svc-api-key-id': account.api_key_id }],
      ['only the secret', { 'svc-api-secret-key': account.api_secret_key }],
      ['a wrong secret', { 'svc-api-key-id': account.api_key_id, 'svc-api-secret-key': `${account.api_secret_key}x` }],
      ['an empty secret', { 'svc-api-key-id': account.api_key_id, 'svc-api-secret-key': '' }],
      ['an unknown key id', { 'svc-api-key-id': 'key_000000000000000000000000', 'svc-api-secret-key': account.api_secret_key }],
      ["another account's secret", { 'svc-api-key-id': account.api_key_id, 'svc-api-secret-key': other.api_secret_key }],
      ['wrong sb- credentials', { 'sb-api-key-id': account.api_key_id, 'sb-api-secret-key': 'nope' }],
    ];
  }

  for (const endpoint of endpoints) {
    it(`${endpoint.label} answers 401 with the exact error body for bad credentials, writing nothing`, async () => {
      const t = makeTestApp();
      const account = await t.createAccount();
      const other = await t.createAccount();
      const id = await createContactOk(t, account, alice);
      const before = await listAll(t, account);
      for (const [label, headers] of badCredentials(account, other)) {
        const res = await t.call(endpoint.method, endpoint.path(id), undefined, endpoint.body, headers);
        expect(res.status, `${label}: ${JSON.stringify(res.body)}`).toBe(401);
        expect(res.body, `${label}: ${JSON.stringify(res.body)}`).toEqual(AUTH_ERROR);
      }
      expect(await listAll(t, account)).toEqual(before);
      expect(await listAll(t, other)).toEqual([]);
    });
  }

  it('checks credentials before validating: an invalid body without credentials is 401, not 400', async () => {
    const { t, account } = await setup();
    const bad = await raw(t, '/accounts/contacts', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{not json',
    });
    expect(bad.status, JSON.stringify(bad.body)).toBe(401);
    expect(bad.body, JSON.stringify(bad.body)).toEqual(AUTH_ERROR);

    const badNumber = await t.call('POST', '/accounts/contacts', undefined, { ...alice, number: '12345abc' });
    expect(badNumber.status, JSON.stringify(badNumber.body)).toBe(401);
    expect(badNumber.body).toEqual(AUTH_ERROR);

    const badQuery = await t.call('GET', '/accounts/contacts?limit=abc', undefined);
    expect(badQuery.status, JSON.stringify(badQuery.body)).toBe(401);
    expect(badQuery.body).toEqual(AUTH_ERROR);

    const unknown = await t.call('GET', '/accounts/contacts/does-not-exist', undefined);
    expect(unknown.status, JSON.stringify(unknown.body)).toBe(401);
    expect(unknown.body).toEqual(AUTH_ERROR);

    expect(await listAll(t, account)).toEqual([]);
  });

  const headerSpellings: Array<[string, (a: TestAccount) => Record<string, string>]> = [
    ['lower-case svc-', (a) => ({ 'svc-api-key-id': a.api_key_id, 'svc-api-secret-key': a.api_secret_key })],
    ['upper-case SVC-', (a) => ({ 'SVC-API-KEY-ID': a.api_key_id, 'SVC-API-SECRET-KEY': a.api_secret_key })],
    ['mixed-case Svc-', (a) => ({ 'Svc-Api-Key-Id': a.api_key_id, 'Svc-Api-Secret-Key': a.api_secret_key })],
    ['sb- aliases', (a) => ({ 'sb-api-key-id': a.api_key_id, 'sb-api-secret-key': a.api_secret_key })],
    ['upper-case SB- aliases', (a) => ({ 'SB-API-KEY-ID': a.api_key_id, 'SB-API-SECRET-KEY': a.api_secret_key })],
  ];
  for (const [label, headersFor] of headerSpellings) {
    it(`accepts ${label} credential headers on every contact endpoint`, async () => {
      const { t, account } = await setup();
      const headers = headersFor(account);
      const created = await t.call('POST', '/accounts/contacts', undefined, alice, headers);
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      expect(created.body.contactData.account_email).toBe(account.email);

      const got = await t.call('GET', `/accounts/contacts/${created.body.contact}`, undefined, undefined, headers);
      expect(got.status, JSON.stringify(got.body)).toBe(200);
      expect(got.body.contact.cid).toBe(created.body.contact);

      const list = await t.call('GET', '/accounts/contacts', undefined, undefined, headers);
      expect(list.status, JSON.stringify(list.body)).toBe(200);
      expect((list.body as any[]).map((c) => c.cid)).toEqual([created.body.contact]);
    });
  }

  it('credentials select the account: each account sees only its own contacts', async () => {
    const t = makeTestApp();
    const one = await t.createAccount();
    const two = await t.createAccount();
    const id = await createContactOk(t, one, alice);
    const asTwo = await t.call('GET', '/accounts/contacts', undefined, undefined, {
      'SB-API-KEY-ID': two.api_key_id,
      'sb-api-secret-key': two.api_secret_key,
    });
    expect(asTwo.status, JSON.stringify(asTwo.body)).toBe(200);
    expect(asTwo.body).toEqual([]);
    const asOne = await listAll(t, one);
    expect(asOne.map((c) => c.cid)).toEqual([id]);
  });
});
