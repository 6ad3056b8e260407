import { describe, expect, it } from 'vitest';
import { makeTestApp, type TestAccount, type TestApp } from '../helpers/app.ts';
import { ALICE, BOB, CAROL, show } from '../helpers/fixtures.ts';
import { captureStatements, expectIndexed, explain, type Captured } from '../helpers/query-plans.ts';

/**
 * Listings must stay index-driven as accounts grow: EXPLAIN QUERY PLAN on the very SQL the app
 * runs (captured from the database client while the HTTP request is served) never shows a full
 * scan of messages or contacts, nor a temporary B-tree to sort the messages listing.
 */

/** The one statement of a listing that reads the table, found among those the request prepared. */
async function listingStatement(t: TestApp, account: TestAccount, path: string, table: string): Promise<Captured> {
  let status = 0;
  let body: unknown;
  const statements = await captureStatements(t.db, async () => {
    const response = await t.call('GET', path, account);
    status = response.status;
    body = response.body;
  });
  expect(status, `${path} -> ${show(body)}`).toBe(200);
  const reads = statements.filter((statement) => /^\s*select/i.test(statement.sql) && statement.sql.includes(`from "${table}"`));
  expect(reads.length, `${path}: statements prepared were ${show(statements.map((s) => s.sql))}`).toBe(1);
  return reads[0]!;
}

async function seed() {
  const t = makeTestApp();
  const account = t.createAccount();
  const other = t.createAccount();
  for (const who of [account, other]) {
    for (const number of [ALICE, BOB, CAROL]) {
      const sent = await t.call('POST', '/api/send-message', who, { number, content: `hi ${number}` });
      expect(sent.status, show(sent.body)).toBe(202);
      t.clock.advance(1_000);
    }
  }
  const group = await t.call('POST', '/api/send-group-message', account, { numbers: [ALICE, BOB], content: 'group' });
  expect(group.status, show(group.body)).toBe(202);
  const contacts = await t.call('GET', '/accounts/contacts', account);
  const cid = (contacts.body as any[]).find((contact) => contact.phone === ALICE).cid as string;
  return { t, account, cid, groupId: group.body.group_id as string };
}

describe('query plans: message listing', () => {
  const cases: Array<[string, (ids: { cid: string; groupId: string }) => Record<string, string>]> = [
    ['unfiltered', () => ({})],
    ['by contact_id (cid)', ({ cid }) => ({ cid })],
    ['by number', () => ({ number: ALICE })],
    ['by group_id', ({ groupId }) => ({ group_id: groupId })],
    ['by status', () => ({ status: 'QUEUED' })],
    ['by from_date', () => ({ from_date: '2026-11-23 09:30:02' })],
    ['by is_outbound', () => ({ is_outbound: 'true' })],
    ['by number and from_date', () => ({ number: ALICE, from_date: '2026-11-23 09:30:02' })],
  ];

  for (const [name, params] of cases) {
    for (const analyzed of [false, true]) {
      it(`${name} uses an index and needs no sort (${analyzed ? 'after ANALYZE' : 'no statistics'})`, async () => {
        const { t, account, cid, groupId } = await seed();
        // With statistics the planner weighs real selectivity, as on a database that has been analyzed.
        if (analyzed) t.db.$client.exec('ANALYZE');
        const query = new URLSearchParams(params({ cid, groupId })).toString();
        const path = `/accounts/messages${query ? `?${query}` : ''}`;
        const statement = await listingStatement(t, account, path, 'messages');
        const plan = explain(t.db, statement);
        if (process.env.SHOW_PLANS) console.log(path, analyzed, statement.sql, plan.map((row) => row.detail));
        const context = `${path}\nSQL: ${statement.sql}\nparams: ${show(statement.params)}`;
        expectIndexed(plan, 'messages', context, { noTempSort: true });
        if (statement.sql.includes('"group_members"')) expectIndexed(plan, 'group_members', context, { noTempSort: false });
      });
    }
  }
});

describe('query plans: contact listing', () => {
  for (const orderBy of ['last_date', 'firstName', 'lastName', 'created_at']) {
    for (const direction of ['asc', 'desc']) {
      it(`order_by=${orderBy} ${direction} uses an index and needs no sort`, async () => {
        const { t, account } = await seed();
        const path = `/accounts/contacts?order_by=${orderBy}&order_direction=${direction}&limit=10&offset=1`;
        const statement = await listingStatement(t, account, path, 'contacts');
        const plan = explain(t.db, statement);
        if (process.env.SHOW_PLANS) console.log(path, statement.sql, plan.map((row) => row.detail));
        expectIndexed(plan, 'contacts', `${path}\nSQL: ${statement.sql}\nparams: ${show(statement.params)}`, { noTempSort: true });
      });
    }
  }
});
