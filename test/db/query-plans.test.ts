import { describe, expect, it } from 'vitest';
import { makeTestApp, type TestAccount, type TestApp } from '../helpers/app.ts';
import { ALICE, BOB, CAROL, show } from '../helpers/fixtures.ts';
import { type Captured, captureStatements, expectIndexed, explain, pretendMillionMessages } from '../helpers/query-plans.ts';

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
  const account = await t.createAccount();
  const other = await t.createAccount();
  for (const who of [account, other]) {
    for (const number of [ALICE, BOB, CAROL]) {
      const sent = await t.call('POST', '/api/send-message', who, { number, content: `hi ${number}` });
      expect(sent.status, show(sent.body)).toBe(202);
      t.clock.advance(1_000);
    }
  }
  const group = await t.call('POST', '/api/send-group-message', account, { numbers: [ALICE, BOB], content: 'group' });
  expect(group.status, show(group.body)).toBe(202);
  // ALICE in two groups: listing by her number merges three conversations.
  const second = await t.call('POST', '/api/send-group-message', account, { numbers: [ALICE, CAROL], content: 'second group' });
  expect(second.status, show(second.body)).toBe(202);
  const contacts = await t.call('GET', '/accounts/contacts', account);
  const cid = (contacts.body as any[]).find((contact) => contact.phone === ALICE).cid as string;
  return { t, account, cid, groupId: group.body.group_id as string };
}

describe('query plans: message listing', () => {
  // `narrow`: the filter is selective, so the search must seek by it, not walk the account's
  // date index testing each row (which "uses an index" yet reads the whole account).
  const cases: Array<[string, (ids: { cid: string; groupId: string }) => Record<string, string>, { narrow: boolean }]> = [
    ['unfiltered', () => ({}), { narrow: false }],
    ['by contact_id (cid)', ({ cid }) => ({ cid }), { narrow: true }],
    ['by number', () => ({ number: ALICE }), { narrow: true }],
    ['by group_id', ({ groupId }) => ({ group_id: groupId }), { narrow: true }],
    ['by status', () => ({ status: 'QUEUED' }), { narrow: true }],
    ['by from_date', () => ({ from_date: '2026-11-23 09:30:02' }), { narrow: false }],
    ['by is_outbound', () => ({ is_outbound: 'true' }), { narrow: false }],
    ['by number and from_date', () => ({ number: ALICE, from_date: '2026-11-23 09:30:02' }), { narrow: true }],
  ];
  const statistics = {
    none: () => {},
    // With statistics the planner weighs real selectivity, as on a database that has been analyzed.
    'after ANALYZE': (t: TestApp) => t.db.$client.exec('ANALYZE'),
    'of a million messages': (t: TestApp) => pretendMillionMessages(t.db),
  };

  for (const [name, params, { narrow }] of cases) {
    for (const [stats, apply] of Object.entries(statistics)) {
      it(`${name} uses an index and needs no sort (statistics: ${stats})`, async () => {
        const { t, account, cid, groupId } = await seed();
        apply(t);
        const query = new URLSearchParams(params({ cid, groupId })).toString();
        const path = `/accounts/messages${query ? `?${query}` : ''}`;
        const statement = await listingStatement(t, account, path, 'messages');
        const plan = explain(t.db, statement);
        if (process.env.SHOW_PLANS)
          console.log(
            path,
            stats,
            statement.sql,
            plan.map((row) => row.detail),
          );
        const context = `${path}\nSQL: ${statement.sql}\nparams: ${show(statement.params)}\n${plan.map((row) => row.detail).join('\n')}`;
        expectIndexed(plan, 'messages', context, { noTempSort: true });
        if (narrow) {
          for (const row of plan.filter((r) => /\bmessages\b/.test(r.detail))) {
            expect(row.detail, `walks the whole account: ${context}`).not.toMatch(/\(account_id=\?( AND date_sent>\?)?\)$/);
          }
        }
      });
    }
  }

  it('by number merges one index search per conversation (the one-to-one and each of its groups), then reads only the page', async () => {
    const { t, account } = await seed();
    pretendMillionMessages(t.db);
    const path = `/accounts/messages?${new URLSearchParams({ number: ALICE })}`;
    const statement = await listingStatement(t, account, path, 'messages');
    const plan = explain(t.db, statement).map((row) => row.detail);
    // The conversations are merged from their indexes alone; the table is read for the page's rows.
    expect(
      plan.filter((detail) => /^SEARCH (messages|m) /.test(detail)),
      show(plan),
    ).toEqual([
      'SEARCH messages USING COVERING INDEX messages_account_number_date_idx (account_id=? AND number=?)',
      'SEARCH messages USING COVERING INDEX messages_account_group_date_idx (account_id=? AND group_id=?)',
      'SEARCH messages USING COVERING INDEX messages_account_group_date_idx (account_id=? AND group_id=?)',
      'SEARCH m USING INTEGER PRIMARY KEY (rowid=?)',
    ]);
  });
  it('by is_outbound rejects the other direction on the index entry, before reading the message row', async () => {
    const { t, account } = await seed();
    pretendMillionMessages(t.db);
    const statement = await listingStatement(t, account, '/accounts/messages?is_outbound=false', 'messages');
    type Op = { addr: number; opcode: string; p1: number; p2: number; p3: number };
    const program = t.db.$client.prepare(`EXPLAIN ${statement.sql}`).all(...(statement.params as never[])) as Op[];
    const listing = program.map((op) => `${op.addr} ${op.opcode} ${op.p1} ${op.p2} ${op.p3}`).join('\n');
    // The table row is fetched lazily (DeferredSeek from the index cursor): the first column read
    // after it must come from that index cursor, i.e. the direction test, not from the table.
    const seekAt = program.findIndex((op) => op.opcode === 'DeferredSeek');
    expect(seekAt, listing).toBeGreaterThanOrEqual(0);
    const firstRead = program.slice(seekAt + 1).find((op) => op.opcode === 'Column');
    expect(firstRead?.p1, listing).toBe(program[seekAt]!.p1);
  });
});

describe('query plans: contact listing', () => {
  for (const orderBy of ['last_date', 'firstName', 'lastName', 'created_at']) {
    for (const direction of ['asc', 'desc']) {
      it(`order_by=${orderBy} ${direction} uses an index and needs no sort`, async () => {
        const { t, account } = await seed();
        const path = `/accounts/contacts?order_by=${orderBy}&order_direction=${direction}&limit=10&offset=1`;
        const statement = await listingStatement(t, account, path, 'contacts');
        const plan = explain(t.db, statement);
        if (process.env.SHOW_PLANS)
          console.log(
            path,
            statement.sql,
            plan.map((row) => row.detail),
          );
        expectIndexed(plan, 'contacts', `${path}\nSQL: ${statement.sql}\nparams: ${show(statement.params)}`, { noTempSort: true });
      });
    }
  }
});

/**
 * The statistics of a million webhook deliveries shared by two accounts (sqlite_stat1 written by
 * hand): a small account's log must be read from its own index entries, not by walking the table
 * newest first through the big account's rows until a page of its own turns up.
 */
function pretendMillionDeliveries(db: TestApp['db']): void {
  const spread: Record<string, number> = { account_id: 500_000, state: 250_000, next_attempt_at: 10, message_handle: 5, url: 2 };
  const client = db.$client;
  client.exec('ANALYZE');
  client.prepare(`delete from sqlite_stat1 where tbl = 'webhook_deliveries'`).run();
  const indexes = client.prepare(`select name from pragma_index_list('webhook_deliveries')`).all() as { name: string }[];
  for (const { name } of indexes) {
    const columns = client.prepare('select name from pragma_index_info(?) order by seqno').all(name) as { name: string }[];
    // Each further column divides the rows of the ones before it.
    let rows = 1_000_000;
    const stat = [1_000_000, ...columns.map((column) => (rows = Math.max(1, Math.min(rows, spread[column.name] ?? 1))))];
    client.prepare(`insert into sqlite_stat1 (tbl, idx, stat) values ('webhook_deliveries', ?, ?)`).run(name, stat.join(' '));
  }
  client.exec('ANALYZE sqlite_schema');
}

describe('query plans: webhook delivery log', () => {
  for (const query of ['', '?state=failed', '?state=delivered&limit=5&offset=5']) {
    it(`GET /accounts/webhooks/deliveries${query} reads the account's own index entries, newest first without a sort`, async () => {
      const t = makeTestApp();
      const big = await t.createAccount();
      const small = await t.createAccount();
      for (const [who, count] of [
        [big, 6],
        [small, 1],
      ] as const) {
        for (let i = 0; i < count; i++) {
          const number = `+1415555${String(2000 + i)}`;
          const sent = await t.call('POST', '/api/send-message', who, { number, content: 'x', status_callback: 'http://127.0.0.1:9/cb' });
          expect(sent.status, show(sent.body)).toBe(202);
        }
      }
      pretendMillionDeliveries(t.db);
      const path = `/accounts/webhooks/deliveries${query}`;
      const statement = await listingStatement(t, small, path, 'webhook_deliveries');
      const plan = explain(t.db, statement);
      const context = `${path}\nSQL: ${statement.sql}\n${plan.map((row) => row.detail).join('\n')}`;
      expectIndexed(plan, 'webhook_deliveries', context, { noTempSort: true });
      for (const row of plan.filter((r) => /\bwebhook_deliveries\b/.test(r.detail))) {
        expect(row.detail, `must seek by the account: ${context}`).toMatch(/account_id=\?/);
      }
    });
  }
});

describe('query plans: contact counts and v2 listings, stored media bytes', () => {
  it('counts live contacts from an index alone, reading no contact row', async () => {
    const { t, account } = await seed();
    // Deleted contacts are not in the count's index: a count never walks past them.
    expect((await t.call('DELETE', `/api/v2/contacts/${BOB}`, account)).status).toBe(200);
    const statement = await listingStatement(t, account, '/api/v2/contacts/count', 'contacts');
    const plan = explain(t.db, statement).map((row) => row.detail);
    expect(plan, `${statement.sql}\n${show(plan)}`).toEqual([
      'SEARCH contacts USING COVERING INDEX contacts_account_live_idx (account_id=? AND deleted_at=?)',
    ]);
  });

  for (const orderBy of ['created_at', 'updated_at', 'phone', 'first_name', 'last_name']) {
    it(`GET /api/v2/contacts?order_by=${orderBy} uses an index and needs no sort`, async () => {
      const { t, account } = await seed();
      const path = `/api/v2/contacts?order_by=${orderBy}&limit=10&offset=1`;
      const statement = await listingStatement(t, account, path, 'contacts');
      expectIndexed(explain(t.db, statement), 'contacts', `${path}\nSQL: ${statement.sql}`, { noTempSort: true });
    });
  }

  it("sums an account's stored media bytes from an index alone, never reading the files", async () => {
    const { t, account } = await seed();
    const accountId = (await t.store.accounts.findByKeyId(account.api_key_id))!.id;
    const statements = await captureStatements(t.db, () => t.store.media.storedBytesForUpdate(accountId));
    const sum = statements.find((statement) => statement.sql.includes('from "media_objects"'))!;
    expect(explain(t.db, sum).map((row) => row.detail)).toEqual([
      'SEARCH media_objects USING COVERING INDEX media_objects_account_bytes_idx (account_id=?)',
    ]);
  });
});
