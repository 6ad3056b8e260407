import { describe, expect, it } from 'vitest';
import { createSqliteStore } from '../../src/db/sqlite/store.ts';
import { getGatewayStats, listFailingDestinations } from '../../src/services/stats.ts';
import { makeTestApp } from '../helpers/app.ts';
import { ALICE, BOB, show } from '../helpers/fixtures.ts';
import { captureStatements, expectIndexed, explain } from '../helpers/query-plans.ts';

/**
 * A scrape and `textrelay status` run these on every call: the outbox ones must read only their
 * state's slice of an index (or its partial index whole) (the delivered rows, the bulk of the table, are never walked), and
 * the message count must stay on a covering index, never reading the table's rows.
 */
async function statsStatements(analyzed: boolean) {
  const t = makeTestApp();
  const account = await t.createAccount();
  for (const number of [ALICE, BOB]) {
    const sent = await t.call('POST', '/api/send-message', account, { number, content: 'hi', status_callback: 'https://example.com/cb' });
    expect(sent.status, show(sent.body)).toBe(202);
  }
  if (analyzed) t.db.$client.exec('ANALYZE');
  const statements = await captureStatements(t.db, async () => {
    const deps = { store: createSqliteStore(t.db, ':memory:').store, clock: t.clock };
    await getGatewayStats(deps);
    await listFailingDestinations(deps);
  });
  return { t, ran: statements.filter((statement) => statement.ran) };
}

describe('query plans: gateway stats', () => {
  for (const analyzed of [false, true]) {
    it(`outbox counts search webhook_deliveries' indexes, the message count a covering index (${analyzed ? 'after ANALYZE' : 'no statistics'})`, async () => {
      const { t, ran } = await statsStatements(analyzed);
      const outbox = ran.filter((statement) => statement.sql.includes('from webhook_deliveries'));
      // Six statements: pending by kind, in flight, given up, the oldest due, and the failing URLs, retrying and given up.
      expect(outbox.length, show(ran.map((statement) => statement.sql))).toBe(6);
      for (const statement of outbox) {
        expectIndexed(explain(t.db, statement), 'webhook_deliveries', `SQL: ${statement.sql.trim()}`, {
          noTempSort: false,
          // Each holds one state's rows: walking it whole reads that slice and no delivered row.
          partial: ['webhook_deliveries_due_idx', 'webhook_deliveries_lease_idx', 'webhook_deliveries_failed_idx'],
        });
      }
      const messages = ran.filter((statement) => statement.sql.includes('from messages'));
      expect(messages).toHaveLength(1);
      const plan = explain(t.db, messages[0]!).map((row) => row.detail);
      expect(plan, show(plan)).toContain('SCAN messages USING COVERING INDEX messages_account_status_date_idx');
    });
  }
});
