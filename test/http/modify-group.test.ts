import { describe, expect, it } from 'vitest';
import { makeTestApp, type TestAccount, type TestApp } from '../helpers/app.ts';
import { expectMessageError } from '../helpers/expect.ts';
import { ALICE, BOB, CAROL, DAVE, distinctNumbers } from '../helpers/fixtures.ts';
import { fakeProvider } from '../helpers/sdk-surface.ts';

const UNKNOWN_GROUP = '8a4c1e5e-3b8f-4d7e-9d55-1c2f3e4a5b6c';

function modify(t: TestApp, account: TestAccount | undefined, body: unknown) {
  return t.call('POST', '/api/modify-group', account, body);
}

function sendGroup(t: TestApp, account: TestAccount, body: unknown) {
  return t.call('POST', '/api/send-group-message', account, body);
}

async function createGroup(t: TestApp, account: TestAccount, numbers: string[]): Promise<string> {
  const sent = await sendGroup(t, account, { numbers, content: 'founding message' });
  expect(sent.status, JSON.stringify(sent.body)).toBe(202);
  expect(typeof sent.body.group_id, JSON.stringify(sent.body)).toBe('string');
  return sent.body.group_id;
}

async function membersOf(t: TestApp, account: TestAccount, groupId: string): Promise<string[]> {
  const sent = await sendGroup(t, account, { group_id: groupId, content: 'who is here?' });
  expect(sent.status, JSON.stringify(sent.body)).toBe(202);
  return [...sent.body.number].sort();
}

describe('POST /api/modify-group: add_recipient', () => {
  it('answers 200 with {status, group_id, modify_type, number}', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const groupId = await createGroup(t, account, [ALICE, BOB]);
    const reply = await modify(t, account, { group_id: groupId, modify_type: 'add_recipient', number: CAROL });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body, JSON.stringify(reply.body)).toEqual({
      status: 'OK',
      group_id: groupId,
      modify_type: 'add_recipient',
      number: CAROL,
      error: null,
      error_message: null,
    });
  });

  it('normalises the added number to E.164', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const groupId = await createGroup(t, account, [ALICE, BOB]);
    const reply = await modify(t, account, { group_id: groupId, modify_type: 'add_recipient', number: '+1 (415) 555-0102' });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body.number, JSON.stringify(reply.body)).toBe(CAROL);
    expect(await membersOf(t, account, groupId)).toEqual([ALICE, BOB, CAROL].sort());
  });

  it('includes the new member in the next send by group_id', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const groupId = await createGroup(t, account, [ALICE, BOB]);
    const added = await modify(t, account, { group_id: groupId, modify_type: 'add_recipient', number: CAROL });
    expect(added.status, JSON.stringify(added.body)).toBe(200);

    const sent = await sendGroup(t, account, { group_id: groupId, content: 'welcome Carol' });
    const dump = JSON.stringify(sent.body);
    expect(sent.status, dump).toBe(202);
    expect(sent.body.group_id, dump).toBe(groupId);
    for (const field of ['number', 'to_number', 'numbers', 'to_numbers']) {
      expect([...sent.body[field]].sort(), `${field}: ${dump}`).toEqual([ALICE, BOB, CAROL].sort());
    }
    expect(sent.body.participants, dump).toEqual(expect.arrayContaining([ALICE, BOB, CAROL, sent.body.from_number]));
  });

  it('makes the new member set identify the group', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const groupId = await createGroup(t, account, [ALICE, BOB]);
    const added = await modify(t, account, { group_id: groupId, modify_type: 'add_recipient', number: CAROL });
    expect(added.status, JSON.stringify(added.body)).toBe(200);

    const bySet = await sendGroup(t, account, { numbers: [CAROL, ALICE, BOB], content: 'by the new set' });
    expect(bySet.status, JSON.stringify(bySet.body)).toBe(202);
    expect(bySet.body.group_id, JSON.stringify(bySet.body)).toBe(groupId);

    const matching = await sendGroup(t, account, { group_id: groupId, numbers: [ALICE, BOB, CAROL], content: 'both' });
    expect(matching.status, JSON.stringify(matching.body)).toBe(202);
    const stale = await sendGroup(t, account, { group_id: groupId, numbers: [ALICE, BOB], content: 'old set' });
    expectMessageError(stale, 400, 4000);
  });

  it('refuses adding a current member with 400/4000 and changes nothing', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const groupId = await createGroup(t, account, [ALICE, BOB]);
    const reply = await modify(t, account, { group_id: groupId, modify_type: 'add_recipient', number: BOB });
    expectMessageError(reply, 400, 4000);
    expect(reply.body.error_message, JSON.stringify(reply.body)).toMatch(/already a member/);
    expect(await membersOf(t, account, groupId)).toEqual([ALICE, BOB].sort());
  });

  it('lets a group grow to 25 and refuses the 26th person', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const numbers = distinctNumbers(26);
    const groupId = await createGroup(t, account, numbers.slice(0, 24));
    const to25 = await modify(t, account, { group_id: groupId, modify_type: 'add_recipient', number: numbers[24] });
    expect(to25.status, JSON.stringify(to25.body)).toBe(200);
    const to26 = await modify(t, account, { group_id: groupId, modify_type: 'add_recipient', number: numbers[25] });
    expectMessageError(to26, 400, 4000);
    expect(await membersOf(t, account, groupId)).toEqual(numbers.slice(0, 25).sort());
  });

  it('refuses a missing number with 400/4000', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const groupId = await createGroup(t, account, [ALICE, BOB]);
    expectMessageError(await modify(t, account, { group_id: groupId, modify_type: 'add_recipient' }), 400, 4000);
    expectMessageError(await modify(t, account, { group_id: groupId, modify_type: 'add_recipient', number: '' }), 400, 4000);
    expect(await membersOf(t, account, groupId)).toEqual([ALICE, BOB].sort());
  });

  it('refuses an invalid number with 400/4000', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const groupId = await createGroup(t, account, [ALICE, BOB]);
    expectMessageError(await modify(t, account, { group_id: groupId, modify_type: 'add_recipient', number: 'carol' }), 400, 4000);
    expectMessageError(await modify(t, account, { group_id: groupId, modify_type: 'add_recipient', number: 4155550102 }), 400, 4000);
  });

  it('refuses a blacklisted number with 400/4002', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const groupId = await createGroup(t, account, [ALICE, BOB]);
    expectMessageError(await modify(t, account, { group_id: groupId, modify_type: 'add_recipient', number: '911' }), 400, 4002);
    expect(await membersOf(t, account, groupId)).toEqual([ALICE, BOB].sort());
  });

  it("refuses the account's own number", async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const groupId = await createGroup(t, account, [ALICE, BOB]);
    const reply = await modify(t, account, { group_id: groupId, modify_type: 'add_recipient', number: account.numbers[0] });
    expectMessageError(reply, 400, 4000);
    expect(await membersOf(t, account, groupId)).toEqual([ALICE, BOB].sort());
  });

  it('gives the new set to the changed group; a group that had that set stays reachable by its group_id', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const small = await createGroup(t, account, [ALICE, BOB]);
    const big = await createGroup(t, account, [ALICE, BOB, CAROL]);
    const reply = await modify(t, account, { group_id: small, modify_type: 'add_recipient', number: CAROL });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(await membersOf(t, account, small)).toEqual([ALICE, BOB, CAROL].sort());
    expect(await membersOf(t, account, big)).toEqual([ALICE, BOB, CAROL].sort());

    const bySet = await sendGroup(t, account, { numbers: [ALICE, BOB, CAROL], content: 'by the set' });
    expect(bySet.body.group_id, JSON.stringify(bySet.body)).toBe(small);
    const byOldId = await sendGroup(t, account, { group_id: big, numbers: [ALICE, BOB, CAROL], content: 'by id and set' });
    expect(byOldId.status, JSON.stringify(byOldId.body)).toBe(202);
    expect(byOldId.body.group_id, JSON.stringify(byOldId.body)).toBe(big);
  });
});

describe('POST /api/modify-group: remove_recipient', () => {
  it('removes the member and keeps the group_id; the next send goes to the others only', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const groupId = await createGroup(t, account, [ALICE, BOB, CAROL]);
    const reply = await modify(t, account, { group_id: groupId, modify_type: 'remove_recipient', number: CAROL });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body).toEqual({
      status: 'OK',
      group_id: groupId,
      modify_type: 'remove_recipient',
      number: CAROL,
      error: null,
      error_message: null,
    });
    expect(await membersOf(t, account, groupId)).toEqual([ALICE, BOB].sort());
    const bySet = await sendGroup(t, account, { numbers: [ALICE, BOB], content: 'by the new set' });
    expect(bySet.body.group_id, JSON.stringify(bySet.body)).toBe(groupId);
  });

  it('refuses removing someone who is not a member with 400/4000', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const groupId = await createGroup(t, account, [ALICE, BOB]);
    const reply = await modify(t, account, { group_id: groupId, modify_type: 'remove_recipient', number: DAVE });
    expectMessageError(reply, 400, 4000);
    expect(reply.body.error_message, JSON.stringify(reply.body)).toMatch(/not a member/);
    expect(await membersOf(t, account, groupId)).toEqual([ALICE, BOB].sort());
  });

  it('refuses removing the last end user with 400/4000', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const groupId = await createGroup(t, account, [ALICE, BOB]);
    const first = await modify(t, account, { group_id: groupId, modify_type: 'remove_recipient', number: BOB });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const last = await modify(t, account, { group_id: groupId, modify_type: 'remove_recipient', number: ALICE });
    expectMessageError(last, 400, 4000);
    expect(last.body.error_message, JSON.stringify(last.body)).toMatch(/last/);
    expect(await membersOf(t, account, groupId)).toEqual([ALICE]);
  });

  it("refuses the removed member's sandbox inbound for that group with 400; the others still write", async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const groupId = await createGroup(t, account, [ALICE, BOB, CAROL]);
    await modify(t, account, { group_id: groupId, modify_type: 'remove_recipient', number: CAROL });
    const removed = await t.call('POST', '/sandbox/inbound', account, { number: CAROL, group_id: groupId, content: 'still here?' });
    expectMessageError(removed, 400, 4000);
    const member = await t.call('POST', '/sandbox/inbound', account, { number: ALICE, group_id: groupId, content: 'hi all' });
    expect(member.status, JSON.stringify(member.body)).toBe(200);
  });

  it("refuses a from_number that is not one of the account's lines", async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const groupId = await createGroup(t, account, [ALICE, BOB, CAROL]);
    const reply = await modify(t, account, { group_id: groupId, modify_type: 'remove_recipient', number: CAROL, from_number: DAVE });
    expectMessageError(reply, 400, 4000);
    expect(reply.body.error_message, JSON.stringify(reply.body)).toMatch(/from_number/);
  });
});

describe('POST /api/modify-group: unsupported and invalid requests', () => {
  it.each(['rename', 'leave'])('answers %s with 501/5010, not to be retried', async (modifyType) => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const groupId = await createGroup(t, account, [ALICE, BOB, CAROL]);
    const reply = await modify(t, account, { group_id: groupId, modify_type: modifyType, number: CAROL });
    expectMessageError(reply, 501, 5010);
    expect(reply.headers.get('x-should-retry')).toBe('false');
    expect(reply.body.error_message, JSON.stringify(reply.body)).toMatch(/not supported/i);
    expect(await membersOf(t, account, groupId)).toEqual([ALICE, BOB, CAROL].sort());
  });

  it.each(['delete', 'ADD_RECIPIENT', ''])('refuses unknown modify_type %j with 400/4000', async (modifyType) => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const groupId = await createGroup(t, account, [ALICE, BOB]);
    const reply = await modify(t, account, { group_id: groupId, modify_type: modifyType, number: CAROL });
    expectMessageError(reply, 400, 4000);
    expect(reply.body.error_message, JSON.stringify(reply.body)).toMatch(/add_recipient or remove_recipient/);
    expect(await membersOf(t, account, groupId)).toEqual([ALICE, BOB].sort());
  });

  it('refuses a missing modify_type or group_id with 400/4000', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const groupId = await createGroup(t, account, [ALICE, BOB]);
    expectMessageError(await modify(t, account, { group_id: groupId, number: CAROL }), 400, 4000);
    expectMessageError(await modify(t, account, { modify_type: 'add_recipient', number: CAROL }), 400, 4000);
    expectMessageError(await modify(t, account, {}), 400, 4000);
  });

  it('refuses malformed JSON with 400/4000', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const response = await t.app.request('/api/modify-group', {
      method: 'POST',
      headers: { ...account.headers, 'content-type': 'application/json' },
      body: '{"group_id":',
    });
    expectMessageError({ status: response.status, headers: response.headers, body: await response.json() }, 400, 4000);
  });

  it('answers 404/4040 for an unknown group', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const reply = await modify(t, account, { group_id: UNKNOWN_GROUP, modify_type: 'add_recipient', number: CAROL });
    expectMessageError(reply, 404, 4040);
  });

  it("answers 404/4040 for another account's group and leaves it unchanged", async () => {
    const t = makeTestApp();
    const owner = await t.createAccount();
    const stranger = await t.createAccount();
    const groupId = await createGroup(t, owner, [ALICE, BOB]);
    const reply = await modify(t, stranger, { group_id: groupId, modify_type: 'add_recipient', number: CAROL });
    expectMessageError(reply, 404, 4040);
    expect(await membersOf(t, owner, groupId)).toEqual([ALICE, BOB].sort());
  });

  it('answers 401/4010 without credentials', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const groupId = await createGroup(t, account, [ALICE, BOB]);
    const reply = await modify(t, undefined, { group_id: groupId, modify_type: 'add_recipient', number: CAROL });
    expectMessageError(reply, 401, 4010);
    expect(await membersOf(t, account, groupId)).toEqual([ALICE, BOB].sort());
  });
});

describe('POST /api/modify-group: plan gating', () => {
  it('answers 403/4030 naming sapphire for a blue account', async () => {
    const t = makeTestApp();
    const account = await t.createAccount({ plan: 'blue' });
    const reply = await modify(t, account, { group_id: UNKNOWN_GROUP, modify_type: 'add_recipient', number: DAVE });
    expectMessageError(reply, 403, 4030);
    expect(reply.body.error_message, JSON.stringify(reply.body)).toMatch(/sapphire/);
  });
});

describe('POST /api/modify-group: relay mode', () => {
  it("forwards under the provider's group id, answers in our ids, and records only what the provider agrees to", async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const groupId = await createGroup(t, account, [ALICE, BOB, CAROL]);
    await t.store.groups.setTransportGroupId(groupId, 'prov-group-1');
    const answer = { status: 'OK', group_id: 'prov-group-1', modify_type: 'remove_recipient', number: CAROL };
    const calls = fakeProvider(t, () => ({ status: 200, body: answer }));
    const reply = await modify(t, account, { group_id: groupId, modify_type: 'remove_recipient', number: CAROL });
    expect(reply.body).toMatchObject({ status: 'OK', group_id: groupId, modify_type: 'remove_recipient', number: CAROL });
    expect(calls).toEqual([
      {
        method: 'POST',
        path: '/api/modify-group',
        body: { group_id: 'prov-group-1', modify_type: 'remove_recipient', number: CAROL, from_number: expect.any(String) },
      },
    ]);
    expect((await t.store.groups.members(groupId)).sort()).toEqual([ALICE, BOB].sort());

    fakeProvider(t, () => ({ status: 400, body: { status: 'ERROR', message: 'provider refused' } }));
    const refused = await modify(t, account, { group_id: groupId, modify_type: 'add_recipient', number: DAVE });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toBe('provider refused');
    expect((await t.store.groups.members(groupId)).sort()).toEqual([ALICE, BOB].sort());
  });

  it('refuses locally, without calling the provider, what the rules refuse', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const groupId = await createGroup(t, account, [ALICE, BOB]);
    const calls = fakeProvider(t, () => ({ status: 200, body: {} }));
    expectMessageError(await modify(t, account, { group_id: groupId, modify_type: 'remove_recipient', number: DAVE }), 400, 4000);
    expect(calls).toEqual([]);
  });
});
