import { afterEach, describe, expect, it } from 'vitest';
import { createSqliteStore } from '../../src/db/sqlite/store.ts';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { ALICE, BOB, CAROL } from '../helpers/fixtures.ts';
import { captureStatements, expectIndexed, explain } from '../helpers/query-plans.ts';

/**
 * The inbox's reads stay index-driven as an account's messages and other accounts grow (no
 * statistics: the planner's view of a database where each account is a small part).
 */

let t: TestApp;
afterEach(() => t.db.$client.close());

async function seeded() {
  t = makeTestApp();
  const account = await t.createAccount();
  for (const who of [account, t.createAccount()]) {
    for (const number of [ALICE, BOB])
      expect((await t.call('POST', '/api/send-message', await who, { number, content: 'hi' })).status).toBe(202);
    expect((await t.call('POST', '/api/send-group-message', await who, { numbers: [ALICE, CAROL], content: 'group' })).status).toBe(202);
    expect((await t.call('POST', '/sandbox/inbound', await who, { number: BOB, content: 'hello' })).status).toBe(200);
  }
  return (await t.deps.store.accounts.findByEmail(account.email))!;
}

describe('inbox query plans', () => {
  it('the conversation list searches contacts, groups, messages and read markers by index', async () => {
    const account = await seeded();
    const statements = await captureStatements(t.db, async () => {
      const store = createSqliteStore(t.db, ':memory:').store;
      await store.conversations.markRead(account.id, 'contact', 'any', { at: 1, messageId: 1 });
      expect((await store.conversations.list(account.id, 100)).length).toBe(3);
    });
    const list = statements.find((statement) => statement.ran && statement.sql.includes('union all'))!;
    const plan = explain(t.db, list);
    for (const table of ['contacts', 'groups', 'messages', 'inbox_reads'])
      expectIndexed(plan, table, 'conversations', { noTempSort: false });
  });

  it("a page's status histories and the session lookups search by index", async () => {
    const account = await seeded();
    const handles = (await t.deps.store.messages.list(account.id, {}, 10, 0)).map((message) => message.handle);
    const statements = await captureStatements(t.db, async () => {
      await t.deps.store.inbox.histories(handles);
      await t.deps.store.inbox.findSession('hash');
      await t.deps.store.inbox.deleteExpiredSessions(account.id, 1);
    });
    const ran = statements.filter((statement) => statement.ran);
    expectIndexed(explain(t.db, ran.find((statement) => statement.sql.includes('"status_events"'))!), 'status_events', 'histories', {
      noTempSort: false,
    });
    for (const statement of ran.filter((statement) => statement.sql.includes('"inbox_sessions"'))) {
      expectIndexed(explain(t.db, statement), 'inbox_sessions', statement.sql, { noTempSort: false });
    }
  });
});
