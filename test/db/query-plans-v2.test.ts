import { describe, expect, it } from 'vitest';
import type { TestAccount } from '../helpers/app.ts';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { ALICE, BOB, CAROL, show } from '../helpers/fixtures.ts';
import { type Captured, captureStatements, expectIndexed, explain, pretendMillionMessages } from '../helpers/query-plans.ts';

/**
 * GET /api/v2/messages stays index-driven at a million messages: the page, the total and the
 * count of rows stored since a total was kept, on the very SQL the request ran.
 */

async function seed() {
  const t = makeTestApp();
  const account = await t.createAccount({ numbers: 1 });
  for (const number of [ALICE, BOB, CAROL]) {
    const sent = await t.call('POST', '/api/send-message', account, { number, content: `hi ${number}` });
    expect(sent.status, show(sent.body)).toBe(202);
    t.clock.advance(1_000);
  }
  const group = await t.call('POST', '/api/send-group-message', account, { numbers: [ALICE, BOB], content: 'group' });
  expect(group.status, show(group.body)).toBe(202);
  pretendMillionMessages(t.db);
  return { t, account, groupId: group.body.group_id as string, line: account.numbers[0]! };
}

async function messageReads(t: TestApp, account: TestAccount, path: string, times = 1): Promise<Captured[]> {
  const statements = await captureStatements(t.db, async () => {
    for (let i = 0; i < times; i++) {
      const response = await t.call('GET', path, account);
      expect(response.status, `${path} -> ${show(response.body)}`).toBe(200);
    }
  });
  return statements.filter((statement) => statement.ran && /from "messages"/.test(statement.sql));
}

/** The plan, without the one-row read of max(id) ("SEARCH messages": SQLite reads the last rowid). */
function planWithoutMaxId(t: TestApp, statement: Captured) {
  return explain(t.db, statement).filter((row) => row.detail !== 'SEARCH messages');
}

function planOf(t: TestApp, statement: Captured): { details: string[]; context: string } {
  const plan = explain(t.db, statement);
  const details = plan.map((row) => row.detail);
  return { details, context: `SQL: ${statement.sql}\nparams: ${show(statement.params)}\n${details.join('\n')}` };
}

describe('query plans: v2 message listing', () => {
  // `narrow`: the filter must be sought in its own index, not tested row by row along the account's dates.
  const cases: Array<[string, (ids: { groupId: string; line: string }) => Record<string, string>, { narrow: boolean }]> = [
    ['unfiltered', () => ({}), { narrow: false }],
    ['by number', () => ({ number: ALICE }), { narrow: true }],
    ['by from_number (an end user)', () => ({ from_number: ALICE }), { narrow: true }],
    ['by to_number (an end user)', () => ({ to_number: BOB }), { narrow: true }],
    ['by group_id', ({ groupId }) => ({ group_id: groupId }), { narrow: true }],
    ['by status', () => ({ status: 'QUEUED' }), { narrow: true }],
    ['by sendblue_number', ({ line }) => ({ sendblue_number: line }), { narrow: false }],
    ['by is_outbound and message_type', () => ({ is_outbound: 'true', message_type: 'message' }), { narrow: false }],
    ['by created_at range', () => ({ created_at_gte: '2000-01-01T00:00:00Z', created_at_lte: '2100-01-01T00:00:00Z' }), { narrow: false }],
    ['by number, oldest first', () => ({ number: ALICE, order_direction: 'asc' }), { narrow: true }],
    ['by service', () => ({ service: 'SMS' }), { narrow: false }],
  ];

  for (const [name, params, { narrow }] of cases) {
    it(`${name}: the page and its total search an index, the page needs no sort`, async () => {
      const { t, account, groupId, line } = await seed();
      const query = new URLSearchParams({ ...params({ groupId, line }), limit: '1' }).toString();
      const reads = await messageReads(t, account, `/api/v2/messages?${query}`);
      const page = reads.find((statement) => /order by/i.test(statement.sql));
      const total = reads.find((statement) => /count\(\*\)/i.test(statement.sql));
      expect(page, show(reads.map((statement) => statement.sql))).toBeDefined();
      for (const statement of [page!, ...(total ? [total] : [])]) {
        const { details, context } = planOf(t, statement);
        expectIndexed(planWithoutMaxId(t, statement), 'messages', context, { noTempSort: statement === page });
        if (narrow) {
          for (const detail of details.filter((d) => /^SEARCH messages /.test(d))) {
            expect(detail, `walks the whole account: ${context}`).not.toMatch(/\(account_id=\?( AND date_sent[<>]\?)*\)$/);
          }
        }
      }
    });
  }

  it('a kept total counts only the newer rows, by rowid', async () => {
    const { t, account } = await seed();
    const reads = await messageReads(t, account, '/api/v2/messages?limit=1', 2);
    const newer = reads.find((statement) => /count\(\*\)/i.test(statement.sql) && /"id" > \?/.test(statement.sql));
    expect(newer, show(reads.map((statement) => statement.sql))).toBeDefined();
    const { details, context } = planOf(t, newer!);
    expect(details.filter((detail) => /\bmessages\b/.test(detail))[0], context).toMatch(
      /^SEARCH messages USING INTEGER PRIMARY KEY \(rowid>\?\)/,
    );
  });

  it('ordering by update time sorts, but still reads only the account (no index has that order)', async () => {
    const { t, account } = await seed();
    const reads = await messageReads(t, account, '/api/v2/messages?limit=1&order_by=updatedAt');
    const page = reads.find((statement) => /order by/i.test(statement.sql))!;
    const { context } = planOf(t, page);
    expectIndexed(explain(t.db, page), 'messages', context, { noTempSort: false });
  });
});
