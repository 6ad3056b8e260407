import { describe, expect, it } from 'vitest';
import type { TestAccount } from '../helpers/app.ts';
import { expectMessageError } from '../helpers/expect.ts';
import { show } from '../helpers/fixtures.ts';
import { rowCounts } from '../helpers/row-counts.ts';
import { makeSandboxApp, type SandboxApp } from './harness.ts';

/**
 * A group lives on the line that wrote it: in iMessage the sending line is a member of the chat,
 * so its members' replies come back on that line. The same people written to from two lines are
 * two groups; a send by group_id from another line is refused.
 */

const ECHO = '+12125550106';
const READER = '+12125550100';

async function replies(t: SandboxApp, account: TestAccount, groupId: string): Promise<any[]> {
  const reply = await t.call('GET', `/accounts/messages?group_id=${groupId}&is_outbound=false`, account);
  expect(reply.status, show(reply.body)).toBe(200);
  return reply.body.messages;
}

async function setup() {
  const t = makeSandboxApp();
  const account = await t.createAccount({ numbers: 2 });
  const [first, second] = account.numbers as [string, string];
  return { t, account, first, second };
}

describe('a group send with from_number', () => {
  it('creates the group on that line, and the echo number replies on that line with the same group_id', async () => {
    const { t, account, first, second } = await setup();
    for (const line of [second, first]) {
      const sent = await t.sendVia('/api/send-group-message', account, { numbers: [READER, ECHO], content: 'team', from_number: line });
      expect(sent.from_number, show(sent)).toBe(line);
      await t.steps(2);
      const [echo, ...more] = await replies(t, account, sent.group_id);
      expect(more).toEqual([]);
      expect(echo, show(echo)).toMatchObject({ from_number: ECHO, to_number: line, group_id: sent.group_id, content: 'echo: team' });
    }
  });

  it('uses the group of those people on that line: one group per line, the oldest when no line is named', async () => {
    const { t, account, first, second } = await setup();
    const send = (extra: Record<string, unknown>) =>
      t.sendVia('/api/send-group-message', account, { numbers: [READER, ECHO], content: 'team', ...extra });
    const onSecond = await send({ from_number: second });
    t.clock.advance(1_000);
    const onFirst = await send({ from_number: first });
    expect(onFirst.group_id).not.toBe(onSecond.group_id);

    expect(await send({ from_number: second }), 'the same line again').toMatchObject({ group_id: onSecond.group_id, from_number: second });
    expect(await send({}), 'no line: the oldest group').toMatchObject({ group_id: onSecond.group_id, from_number: second });
    expect(await send({ group_id: onFirst.group_id }), 'by group_id: its line').toMatchObject({
      group_id: onFirst.group_id,
      from_number: first,
    });
    expect(await send({ group_id: onFirst.group_id, from_number: first })).toMatchObject({ group_id: onFirst.group_id });
  });
});

describe('a group on one line addressed from another', () => {
  it('refuses a send by group_id with another from_number (400, 4000, naming the group’s line) and writes nothing', async () => {
    const { t, account, first, second } = await setup();
    const sent = await t.sendVia('/api/send-group-message', account, { numbers: [READER, ECHO], content: 'team', from_number: second });
    const before = await rowCounts(t);

    const reply = await t.call('POST', '/api/send-group-message', account, { group_id: sent.group_id, content: 'hi', from_number: first });
    expectMessageError(reply, 400, 4000);
    expect(reply.body.error_message, show(reply.body)).toContain(second);
    expect(reply.body.error_message).toMatch(/from_number/);
    expect(await rowCounts(t)).toEqual(before);
  });

  it('refuses a change of its members with another from_number likewise', async () => {
    const { t, account, first, second } = await setup();
    const sent = await t.sendVia('/api/send-group-message', account, { numbers: [READER, ECHO], content: 'team', from_number: second });
    const reply = await t.call('POST', '/api/modify-group', account, {
      group_id: sent.group_id,
      modify_type: 'add_recipient',
      number: '+12125550101',
      from_number: first,
    });
    expect(reply.status, show(reply.body)).toBe(400);
    expect(JSON.stringify(reply.body)).toContain(second);
  });
});
