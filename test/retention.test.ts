import { afterEach, describe, expect, it } from 'vitest';
import { IDEMPOTENCY_WINDOW_MS } from '../src/domain/limits.ts';
import { createLogger } from '../src/logger.ts';
import { createRetention } from '../src/retention.ts';
import { recordAccountEvent } from '../src/services/account-events.ts';
import { recordHandover } from '../src/services/handover.ts';
import { INBOX_SESSION_MS } from '../src/services/inbox-sessions.ts';
import { receiveFromTransport } from '../src/services/receive-inbound.ts';
import { recordStatus } from '../src/services/record-status.ts';
import { makeTestApp, type TestAccount, type TestApp } from './helpers/app.ts';
import { send } from './helpers/delivery.ts';
import { ALICE, BOB, show } from './helpers/fixtures.ts';
import { rowCounts } from './helpers/row-counts.ts';
import { loggedIn } from './inbox/client.ts';
import { sampleValue, scrape } from './metrics/scrape.ts';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const RETENTION = {
  deliveryRetentionMs: 30 * DAY_MS,
  orphanEventRetentionMs: 7 * DAY_MS,
  unroutedRetentionMs: 30 * DAY_MS,
  batchPauseMs: 0,
};

let t: TestApp;
afterEach(() => t.db.$client.close());

type Line = Record<string, unknown> & { msg: string };

function loggedApp() {
  const lines: Line[] = [];
  const log = createLogger('info', { write: (line: string) => lines.push(JSON.parse(line) as Line) });
  t = makeTestApp({ log });
  return lines;
}

async function sendWithKey(account: TestAccount, key: string, content = 'hello') {
  const reply = await t.call('POST', '/api/send-message', account, { number: ALICE, content }, { 'Idempotency-Key': key });
  expect(reply.status, show(reply.body)).toBe(202);
  return reply.body as { message_handle: string };
}

function keysStored(): string[] {
  return (t.db.$client.prepare('select key from idempotency_keys order by key').all() as { key: string }[]).map((row) => row.key);
}

function orphanHandles(): string[] {
  return (
    t.db.$client.prepare('select transport_handle from orphan_status_events order by id').all() as { transport_handle: string }[]
  ).map((row) => row.transport_handle);
}

describe('retention of idempotency keys', () => {
  it('removes the keys past the 24 h replay window; a key inside it still replays, an expired one sends again as before', async () => {
    const lines = loggedApp();
    const account = await t.createAccount();
    const expired = await sendWithKey(account, 'key-expired');
    t.clock.advance(HOUR_MS);
    const recent = await sendWithKey(account, 'key-recent');
    t.clock.advance(IDEMPOTENCY_WINDOW_MS - HOUR_MS);

    const pass = await createRetention(t.deps, RETENTION).prunePass();

    expect(pass.idempotency_keys).toBe(1);
    expect(keysStored()).toEqual(['key-recent']);
    expect(lines).toContainEqual(
      expect.objectContaining({ msg: 'forgot idempotency keys past the replay window', table: 'idempotency_keys', pruned: 1 }),
    );
    const messagesBefore = (await rowCounts(t)).messages;
    expect((await sendWithKey(account, 'key-recent')).message_handle, 'replayed: the same message').toBe(recent.message_handle);
    expect((await rowCounts(t)).messages).toBe(messagesBefore);
    const again = await sendWithKey(account, 'key-expired', 'something else');
    expect(again.message_handle, 'a key a whole window old sends a new message, as it did before pruning').not.toBe(expired.message_handle);
  });

  it('walks past a key reused after its window, which counts from its reuse', async () => {
    t = makeTestApp();
    const account = await t.createAccount();
    await sendWithKey(account, 'key-reused');
    t.clock.advance(HOUR_MS);
    await sendWithKey(account, 'key-once');
    t.clock.advance(IDEMPOTENCY_WINDOW_MS);
    const reused = await sendWithKey(account, 'key-reused', 'a new request');
    t.clock.advance(HOUR_MS);

    expect((await createRetention(t.deps, RETENTION).prunePass()).idempotency_keys).toBe(1);
    expect(keysStored()).toEqual(['key-reused']);
    expect((await sendWithKey(account, 'key-reused', 'a new request')).message_handle).toBe(reused.message_handle);
  });
});

describe('retention of inbox sessions', () => {
  it('removes an expired session of an account that never logs in again, and keeps running sessions', async () => {
    t = makeTestApp();
    const gone = await t.createAccount();
    const staying = await t.createAccount();
    await loggedIn(t, gone);
    t.clock.advance(HOUR_MS);
    const browser = await loggedIn(t, staying);
    t.clock.advance(INBOX_SESSION_MS - HOUR_MS);

    const pass = await createRetention(t.deps, RETENTION).prunePass();

    expect(pass.inbox_sessions).toBe(1);
    const sessions = t.db.$client.prepare('select account_id from inbox_sessions').all() as { account_id: string }[];
    expect(sessions.map((session) => session.account_id)).toEqual([(await t.store.accounts.findByKeyId(staying.api_key_id))!.id]);
    expect((await browser.get('/inbox')).status, 'the running session still opens the inbox').toBe(200);
  });
});

describe('retention of orphan status events', () => {
  it('drops the events older than the retention, counts them in the log and /metrics, and a recent one still applies at hand-over', async () => {
    const lines = loggedApp();
    const account = await t.createAccount();
    await recordStatus(t.deps, { handle: 't-never-known', status: 'DELIVERED', source: 'upstream', sourceEventId: 'e-old' });
    t.clock.advance(DAY_MS);
    const message = await send(t, account, { number: BOB });
    await recordStatus(t.deps, { handle: `t-${message.message_handle}`, status: 'SENT', source: 'upstream', sourceEventId: 'e-recent' });
    t.clock.advance(6 * DAY_MS);

    const pass = await createRetention(t.deps, RETENTION).prunePass();

    expect(pass.orphan_status_events).toBe(1);
    expect(orphanHandles()).toEqual([`t-${message.message_handle}`]);
    expect(lines).toContainEqual(
      expect.objectContaining({ msg: 'dropped status events whose message never became known', table: 'orphan_status_events', pruned: 1 }),
    );
    const { samples } = await scrape((path, init) => t.app.request(path, init));
    expect(sampleValue(samples, 'textrelay_retention_pruned_rows_total', { table: 'orphan_status_events' })).toBe(1);
    expect(sampleValue(samples, 'textrelay_retention_pruned_rows_total', { table: 'inbox_sessions' })).toBe(0);

    await recordHandover(t.deps, message.message_handle, { transportHandle: `t-${message.message_handle}` });
    expect((await t.store.messages.findByAnyHandle(message.message_handle))!.status).toBe('SENT');
  });

  it('keeps them all with a retention of 0', async () => {
    t = makeTestApp();
    await recordStatus(t.deps, { handle: 't-never-known', status: 'DELIVERED', source: 'upstream' });
    t.clock.advance(365 * DAY_MS);
    expect((await createRetention(t.deps, { ...RETENTION, orphanEventRetentionMs: 0 }).prunePass()).orphan_status_events).toBe(0);
    expect(orphanHandles()).toEqual(['t-never-known']);
  });
});

describe('retention of unrouted inbound messages', () => {
  const toNoLine = (handle: string) =>
    receiveFromTransport(t.deps, {
      from: ALICE,
      toNumber: '+12025550123',
      content: 'hi',
      mediaUrl: '',
      service: 'iMessage',
      source: 'upstream',
      transportHandle: handle,
    });
  const unroutedHandles = () =>
    (t.db.$client.prepare('select transport_handle from unrouted_inbound order by id').all() as { transport_handle: string }[]).map(
      (row) => row.transport_handle,
    );

  it('forgets those older than the retention and keeps the rest', async () => {
    const lines = loggedApp();
    await toNoLine('up-old');
    t.clock.advance(29 * DAY_MS);
    await toNoLine('up-recent');
    t.clock.advance(DAY_MS);

    const pass = await createRetention(t.deps, RETENTION).prunePass();

    expect(pass.unrouted_inbound).toBe(1);
    expect(unroutedHandles()).toEqual(['up-recent']);
    expect(lines).toContainEqual(
      expect.objectContaining({ msg: 'forgot old unrouted inbound messages', table: 'unrouted_inbound', pruned: 1 }),
    );
  });

  it('keeps them all with a retention of 0', async () => {
    t = makeTestApp();
    await toNoLine('up-old');
    t.clock.advance(365 * DAY_MS);
    expect((await createRetention(t.deps, { ...RETENTION, unroutedRetentionMs: 0 }).prunePass()).unrouted_inbound).toBe(0);
    expect(unroutedHandles()).toEqual(['up-old']);
  });
});

describe('retention passes over many rows', () => {
  it('removes more rows than one batch from each table, and stops at the first row inside its retention', async () => {
    t = makeTestApp();
    const accountId = (await t.store.accounts.findByKeyId((await t.createAccount()).api_key_id))!.id;
    const total = 1_234;
    const rowsAt = async (suffix: string) => {
      for (let i = 0; i < total; i += 1) {
        const now = t.clock.now();
        await t.store.idempotency.save({
          accountId,
          key: `k${suffix}${i}`,
          requestHash: 'h',
          responseStatus: 202,
          responseBody: '{}',
          createdAt: now,
        });
        await t.store.inbox.insertSession({
          tokenHash: `s${suffix}${i}`,
          accountId,
          apiSecretHash: 'x',
          createdAt: now,
          expiresAt: now + INBOX_SESSION_MS,
        });
        await recordStatus(t.deps, { handle: `t-unknown-${suffix}${i}`, status: 'SENT', source: 'upstream' });
        await recordAccountEvent(t.deps, accountId, 'typing.changed', { is_typing: true }, now);
      }
    };
    // The account's creation logged its line.assigned events: as old as the old rows.
    const lineEvents = await t.store.accountEvents.latestId(accountId);
    await rowsAt('old');
    t.clock.advance(7 * DAY_MS);
    await rowsAt('new');
    t.clock.advance(1);

    const pass = await createRetention(t.deps, RETENTION).prunePass();

    expect(pass).toEqual({
      webhook_deliveries: 0,
      idempotency_keys: total,
      inbox_sessions: total,
      orphan_status_events: total,
      unrouted_inbound: 0,
      account_events: total + lineEvents,
      media_objects: 0,
    });
    expect(await t.store.accountEvents.after(accountId, 0, total + 1)).toHaveLength(total);
    const counts = await rowCounts(t);
    expect([counts.idempotency_keys, counts.inbox_sessions, counts.orphan_status_events]).toEqual([total, total, total]);
    expect(orphanHandles()[0]).toBe('t-unknown-new0');
  });

  it('ends a batch at the first row inside the retention, without reading on', async () => {
    t = makeTestApp();
    for (let i = 0; i < 3; i += 1) await recordStatus(t.deps, { handle: `t-unknown-${i}`, status: 'SENT', source: 'upstream' });
    expect(await t.store.orphans.pruneReceivedBy(t.clock.now() - 1, 0, 2)).toEqual({ pruned: 0, resumeAfter: null });
    expect(await t.store.orphans.pruneReceivedBy(t.clock.now(), 0, 2)).toEqual({ pruned: 2, resumeAfter: 2 });
  });
});
