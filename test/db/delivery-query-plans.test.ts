import { describe, expect, it } from 'vitest';
import { createSqliteStore } from '../../src/db/sqlite/store.ts';
import type { Store } from '../../src/db/store.ts';
import { recordAttempts } from '../../src/services/callback-dispatch.ts';
import type { ServiceDeps } from '../../src/services/deps.ts';
import { recordHandover } from '../../src/services/handover.ts';
import { receiveFromTransport } from '../../src/services/receive-inbound.ts';
import { recordStatus } from '../../src/services/record-status.ts';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { send, sendGroup } from '../helpers/delivery.ts';
import { ALICE, BOB, CAROL, DAVE, distinctNumbers, show } from '../helpers/fixtures.ts';
import { claimDue, finishedAs } from '../helpers/outbox.ts';
import { captureStatements, expectIndexed, explain } from '../helpers/query-plans.ts';

/**
 * The delivery core's hot lookups (every status event, every inbound message, every start) must
 * search an index, never scan a table that grows with every message.
 */

/**
 * Two accounts' worth of messages, handed over and not, with events, orphans, pins and transport
 * groups: enough rows that, after ANALYZE, scanning a table costs more than searching its index
 * (on a table of one or two rows the planner rightly prefers a scan).
 */
async function seed() {
  const t = makeTestApp();
  const handles: string[] = [];
  for (const account of [t.createAccount(), t.createAccount()]) {
    for (const number of distinctNumbers(8)) {
      const group = await sendGroup(t, await account, { numbers: [DAVE, number] });
      await recordHandover(t.deps, group.message_handle, {
        transportHandle: `t-${group.message_handle}`,
        transportGroupId: `tg-${group.group_id}`,
      });
    }
    for (const number of [ALICE, BOB, CAROL]) {
      const handle = (await send(t, await account, { number })).message_handle;
      handles.push(handle);
      t.clock.advance(1_000);
    }
    const group = await sendGroup(t, await account, { numbers: [ALICE, BOB] });
    await recordHandover(t.deps, group.message_handle, {
      transportHandle: `t-${group.message_handle}`,
      transportGroupId: `tg-${group.group_id}`,
    });
    await receiveFromTransport(t.deps, {
      from: CAROL,
      toNumber: (await account).numbers[0]!,
      content: 'hi',
      mediaUrl: '',
      service: 'iMessage',
      source: 'upstream',
    });
  }
  for (const handle of handles.slice(0, 3)) {
    await recordHandover(t.deps, handle, { transportHandle: `t-${handle}` });
    await recordStatus(t.deps, { handle: `t-${handle}`, status: 'SENT', source: 'upstream', sourceEventId: `e-${handle}` });
  }
  for (let i = 0; i < 20; i++) {
    await recordStatus(t.deps, { handle: `not-yet-known-${i}`, status: 'DELIVERED', source: 'upstream', sourceEventId: `e-orphan-${i}` });
  }
  return { t, handles };
}

type Case = [
  name: string,
  table: string[],
  run: (store: Store, ids: { handle: string; deps: ServiceDeps }) => unknown,
  matches: RegExp,
  noTempSort: boolean,
  /** Partial indexes the query may walk whole: they hold only the rows it wants. */
  partial?: readonly string[],
];

const cases: Case[] = [
  [
    'find a message by our handle',
    ['messages'],
    (s, { handle }) => s.messages.findByAnyHandle(handle),
    /from messages where handle = \?/,
    false,
  ],
  [
    'find a message by the transport’s handle',
    ['messages'],
    (s, { handle }) => s.messages.findByAnyHandle(`t-${handle}`),
    /from messages where transport_handle = \?/,
    false,
  ],
  [
    'messages awaiting hand-over, a page after a cursor',
    ['messages'],
    (s) => s.messages.awaitingHandover(500, 1),
    /"handed_over_at" is null/,
    true,
  ],
  [
    'the senders with messages awaiting hand-over',
    ['messages'],
    (s) => s.messages.handoverSenders(),
    /^select distinct "account_id", "line_number" from "messages"/,
    false,
    ['messages_awaiting_handover_idx'],
  ],
  [
    'one sender’s messages awaiting hand-over, a page after a position',
    ['messages'],
    async (s, { handle }) => {
      const message = (await s.messages.findByAnyHandle(handle))!;
      return s.messages.awaitingHandoverFrom(message, 100, { dateSent: 1, id: 1 });
    },
    /"date_sent", "messages"."id"\) > \(/,
    true,
  ],
  [
    'orphan events taken by transport handle (read)',
    ['orphan_status_events'],
    (s) => s.orphans.take('not-yet-known-3'),
    /^select .* from "orphan_status_events"/,
    true,
  ],
  [
    'orphan events taken by transport handle (delete)',
    ['orphan_status_events'],
    (s) => s.orphans.take('not-yet-known-3'),
    /^delete from "orphan_status_events"/,
    false,
  ],
  [
    'source event already seen',
    ['status_events'],
    (s, { handle }) => s.messages.sourceEventSeen('upstream', `e-${handle}`),
    /source_event_id = \?/,
    false,
  ],
  [
    'a message’s status history, in arrival order',
    ['status_events'],
    (s, { handle }) => s.messages.history(handle),
    /order by "status_events"\."received_at"/,
    true,
  ],
  [
    'the owner of the line an inbound message arrived on',
    ['service_numbers'],
    (s) => s.accounts.findByServiceNumber('+12025550123'),
    /from "service_numbers"/,
    false,
  ],
  [
    'an account’s group by transport group id',
    ['groups'],
    async (s, { handle }) => s.groups.findByTransportGroupId((await s.messages.findByAnyHandle(handle))!.accountId, 'tg-some-group'),
    /"transport_group_id" = \?/,
    false,
  ],
  ['end users pinned to a line (removing it)', ['number_pins'], (s) => s.accounts.lineUsers('+12025550123'), /from "number_pins"/, false],
  ['groups living on a line (removing it)', ['groups'], (s) => s.accounts.lineUsers('+12025550123'), /from "groups"/, false],
  // The outbox: every applied status enqueues, the dispatcher claims and finishes many times a second.
  [
    'outbox enqueue (is a callback of the same message ahead?)',
    ['webhook_deliveries'],
    async (s, { handle }) =>
      s.outbox.enqueue(
        {
          webhookId: 'msg_plan',
          accountId: (await s.messages.findByAnyHandle(handle))!.accountId,
          messageHandle: handle,
          eventType: 'message.status',
          url: 'https://example.com/cb',
          payload: '{}',
        },
        1,
      ),
    /^\s*insert into webhook_deliveries/,
    false,
  ],
  [
    'outbox claim of due rows, in message order (aliases d, e: the row and the ones ahead of it)',
    ['d', 'e'],
    (_s, { deps }) => claimDue(deps, 10),
    /from webhook_deliveries d\s/,
    true,
  ],
  [
    'outbox: the waiting callback a finished one lets go (aliases f, e: the next callback and the rows ahead)',
    ['f', 'e', 'webhook_deliveries'],
    async (s, { handle, deps }) => {
      const accountId = (await s.messages.findByAnyHandle(handle))!.accountId;
      for (const webhookId of ['msg_plan_first', 'msg_plan_next']) {
        await s.outbox.enqueue(
          { webhookId, accountId, messageHandle: handle, eventType: 'message.status', url: 'https://example.com/cb', payload: '{}' },
          1,
        );
      }
      const row = (await claimDue(deps, 10)).find((claimed) => claimed.url.startsWith('https://example.com/'));
      if (row) await recordAttempts(deps, [finishedAs(row, { kind: 'delivered' }, { attemptedAt: 1, statusCode: 200 })]);
      return handle;
    },
    /from webhook_deliveries f\s/,
    false,
  ],
  ['given-up deliveries since a time', ['webhook_deliveries'], (s) => s.outbox.failedSince(0), /from "webhook_deliveries"/, false],
  // The retention pass walks each table by rowid from where the last batch stopped: no batch reads the whole table.
  ...(['select', 'delete'] as const).flatMap((verb): Case[] => [
    [
      `retention: idempotency keys past the window (${verb})`,
      ['idempotency_keys'],
      async (s, { handle }) => {
        const accountId = (await s.messages.findByAnyHandle(handle))!.accountId;
        await s.idempotency.save({ accountId, key: 'k-plan', requestHash: 'h', responseStatus: 202, responseBody: '{}', createdAt: 1 });
        return s.idempotency.pruneCreatedBy(1, 0, 500);
      },
      new RegExp(`^${verb} .*from idempotency_keys where rowid`),
      false,
    ],
    [
      `retention: expired inbox sessions (${verb})`,
      ['inbox_sessions'],
      async (s, { handle }) => {
        const accountId = (await s.messages.findByAnyHandle(handle))!.accountId;
        await s.inbox.insertSession({ tokenHash: 'plan', accountId, apiSecretHash: 'x', createdAt: 1, expiresAt: 2 });
        return s.inbox.pruneExpiredSessions(2, 0, 500);
      },
      new RegExp(`^${verb} .*from inbox_sessions where rowid`),
      false,
    ],
    [
      `retention: orphan status events past their retention (${verb})`,
      ['orphan_status_events'],
      (s) => s.orphans.pruneReceivedBy(Number.MAX_SAFE_INTEGER, 0, 500),
      new RegExp(`^${verb} .*from orphan_status_events where rowid`),
      false,
    ],
  ]),
];

/** The one statement matching `pattern` that ran while `run` used a store built under capture. */
async function capturedStatement(t: TestApp, run: (store: Store) => unknown, pattern: RegExp) {
  const statements = await captureStatements(t.db, () => run(createSqliteStore(t.db, ':memory:').store));
  const ran = statements.filter((statement) => statement.ran && pattern.test(statement.sql));
  expect(ran.length, `statements that ran: ${show(statements.filter((s) => s.ran).map((s) => s.sql))}`).toBe(1);
  return ran[0]!;
}

describe('query plans: delivery core', () => {
  for (const [name, tables, run, pattern, noTempSort, partial] of cases) {
    for (const analyzed of [false, true]) {
      it(`${name} searches an index (${analyzed ? 'after ANALYZE' : 'no statistics'})`, async () => {
        const { t, handles } = await seed();
        if (analyzed) t.db.$client.exec('ANALYZE');
        const statement = await capturedStatement(t, (store) => run(store, { handle: handles[0]!, deps: { ...t.deps, store } }), pattern);
        const plan = explain(t.db, statement);
        if (process.env.SHOW_PLANS)
          console.log(
            name,
            analyzed,
            statement.sql,
            plan.map((row) => row.detail),
          );
        const context = `${name}\nSQL: ${statement.sql}\nparams: ${show(statement.params)}`;
        for (const table of tables) expectIndexed(plan, table, context, { noTempSort, ...(partial ? { partial } : {}) });
      });
    }
  }

  it('the seed exercised every lookup for real', async () => {
    const { t, handles } = await seed();
    expect((await t.store.messages.findByAnyHandle(`t-${handles[0]}`))?.handle).toBe(handles[0]);
    expect(await t.store.messages.sourceEventSeen('upstream', `e-${handles[0]}`)).toBe(true);
    expect((await t.store.messages.awaitingHandover(500)).length).toBeGreaterThan(0);
  });
});
