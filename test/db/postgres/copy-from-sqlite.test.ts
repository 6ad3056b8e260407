import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/app.ts';
import { migrateDataCommand } from '../../../src/cli/migrate-data.ts';
import { statusCommand } from '../../../src/cli/status.ts';
import { loadConfig } from '../../../src/config.ts';
import { copySqliteToPostgres } from '../../../src/db/postgres/copy-from-sqlite.ts';
import { POSTGRES_ONLY_TABLES } from '../../../src/db/postgres/schema.ts';
import { createPostgresStore } from '../../../src/db/postgres/store.ts';
import { createDeps } from '../../../src/deps.ts';
import { recordAttempts } from '../../../src/services/callback-dispatch.ts';
import { receiveFromTransport } from '../../../src/services/receive-inbound.ts';
import { recordStatus } from '../../../src/services/record-status.ts';
import { StartupError } from '../../../src/startup-error.ts';
import type { TestAccount } from '../../helpers/app.ts';
import { FakeClock } from '../../helpers/clock.ts';
import { CAROL, DAVE, show } from '../../helpers/fixtures.ts';
import { jsonRequest, type Reply, readReply } from '../../helpers/http.ts';
import { claimDue, finishedAs } from '../../helpers/outbox.ts';
import { populate } from '../../helpers/populated-app.ts';
import { freshPostgresDatabase, type TestPostgresDatabase } from '../../helpers/postgres-database.ts';
import { rowCounts } from '../../helpers/row-counts.ts';
import { makeSandboxApp } from '../../sandbox/harness.ts';

const folders: string[] = [];
const opened: TestPostgresDatabase[] = [];
afterEach(async () => {
  for (const database of opened.splice(0)) await database.close();
});
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

function databaseFile(): string {
  const folder = mkdtempSync(join(tmpdir(), 'textrelay-copy-'));
  folders.push(folder);
  return join(folder, 'textrelay.db');
}

async function target(): Promise<TestPostgresDatabase> {
  const database = await freshPostgresDatabase();
  opened.push(database);
  return database;
}

const PNG = Buffer.from('89504e470d0a1a0a', 'hex');
const HOOK = 'https://hooks.example.com/all';

/** Silent progress: what the command writes to stderr, kept for the assertions. */
function capture() {
  const lines: string[] = [];
  return { lines, stream: { isTTY: false, write: (text: string) => lines.push(text) } };
}

/**
 * A SQLite file filled through the real app and services: two accounts with sends, groups,
 * contacts, inbound messages, webhook lists, callbacks and their attempts, sandbox timelines half
 * run, an idempotent send, an uploaded image, an inbox login, read conversations, status
 * reports and inbound messages nobody owns, and a carrier's kept state.
 */
async function filledSqlite(file: string) {
  const t = makeSandboxApp({ database: file });
  t.deps.fetchMedia = async () => ({ ok: true, contentType: 'image/png', bytes: PNG });
  const first = await populate(t, await t.createAccount(), ['+12124567140', '+12124567141', '+12124567142'], 'one');
  const second = await populate(t, await t.createAccount(), ['+12124567150', '+12124567151', '+12124567152'], 'two');
  const account = first.account;
  const ok = async (method: string, path: string, body?: unknown, headers?: Record<string, string>) => {
    const reply = await t.call(method, path, account, body, headers);
    expect(reply.status, `${method} ${path} -> ${show(reply.body)}`).toBeLessThan(300);
    return reply.body;
  };
  await ok('POST', '/api/account/webhooks', { webhooks: [HOOK, { url: 'https://b.example.com/x', secret: 's' }], type: 'outbound' });
  // What a carrier keeps across restarts (BlueBubbles: its webhook secret and read-back cursor).
  await t.store.carrierState.set('bluebubbles', 'webhook_secret', 'kept-across-restarts', Date.now());
  await ok('POST', '/api/send-message', { number: CAROL, content: 'once only' }, { 'idempotency-key': 'key-1' });
  await ok('POST', '/api/v2/contacts', { number: DAVE, first_name: 'Dave', tags: ['vip'], custom_variables: { tier: 'gold' } });
  const media = await ok('POST', '/api/upload-media-object', { media_url: 'https://media.example.com/a.png' });
  await t.steps(2);
  const deliveries = await claimDue(t.deps, 3);
  await recordAttempts(
    t.deps,
    deliveries.map((row) => finishedAs(row, { kind: 'failed' }, { statusCode: 410, attemptedAt: t.clock.now() })),
  );
  await recordStatus(t.deps, { handle: 'up-unknown', status: 'DELIVERED', source: 'upstream', sourceEventId: 'evt-1' });
  await receiveFromTransport(t.deps, {
    from: CAROL,
    toNumber: '+19995550100',
    content: 'to nobody',
    mediaUrl: '',
    service: 'iMessage',
    transportHandle: 'up-in-1',
    source: 'upstream',
  });
  const login = await t.app.request('/inbox/login', {
    method: 'POST',
    redirect: 'manual',
    headers: { origin: 'http://localhost', 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ key_id: account.api_key_id, secret: account.api_secret_key }),
  });
  expect(login.status).toBe(303);
  const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0]!;
  const conversation = await t.app.request(`/inbox/groups/${first.owned.groupIds[0]}`, { headers: { cookie } });
  expect(conversation.status).toBe(200);
  return { t, accounts: [first, second], mediaId: media.mediaObjectId as string, cookie };
}

/** The real app on the PostgreSQL database, at the SQLite app's time. */
function appOnPostgres(database: TestPostgresDatabase, clock: FakeClock) {
  const deps = createDeps(loadConfig({}), {
    store: createPostgresStore(database.db),
    isReady: () => true,
    clock,
    log: pino({ level: 'silent' }),
  });
  const app = buildApp(deps);
  return {
    app,
    deps,
    call: async (method: string, path: string, account: TestAccount, body?: unknown) =>
      readReply(await app.request(path, jsonRequest(method, account.headers, body))),
  };
}

/** Row counts of every table of the PostgreSQL database, by name. */
async function postgresRowCounts(database: TestPostgresDatabase): Promise<Record<string, number>> {
  const sql = database.db.$client;
  const tables = await sql<{ name: string }[]>`select table_name as name from information_schema.tables where table_schema = 'public'`;
  const counts: Record<string, number> = {};
  for (const { name } of tables) {
    // The instances' shared limits have no SQLite twin: the copy leaves them empty.
    if (POSTGRES_ONLY_TABLES.includes(name)) continue;
    const [row] = await sql<{ rows: string }[]>`select count(*) as rows from ${sql(name)}`;
    counts[name] = Number(row!.rows);
  }
  return counts;
}

type Caller = { call(method: string, path: string, account: TestAccount): Promise<Reply> };

/** What an account sees through the API: its messages, contacts, webhook lists, callbacks and each message's history. */
async function accountView(app: Caller, account: TestAccount, handles: string[]) {
  const view: Record<string, unknown> = {};
  for (const path of [
    '/accounts/messages?limit=100',
    '/api/v2/messages?limit=100',
    '/accounts/contacts',
    '/api/v2/contacts',
    '/accounts/webhooks',
    '/api/account/webhooks',
    '/accounts/webhooks/deliveries',
    ...handles.map((handle) => `/api/status?handle=${handle}&history=1`),
  ]) {
    const reply = await app.call('GET', path, account);
    expect(reply.status, `GET ${path} -> ${show(reply.body)}`).toBe(200);
    view[path] = reply.body;
  }
  return view;
}

describe('copying a SQLite database into PostgreSQL', () => {
  it('moves every row, so each account sees the same data on PostgreSQL and its credentials still work', async () => {
    const file = databaseFile();
    const { t, accounts, mediaId, cookie } = await filledSqlite(file);
    const empty = Object.entries(await rowCounts(t))
      .filter(([, rows]) => rows === 0)
      .map(([table]) => table);
    expect(empty, 'tables the fill left empty').toEqual([]);
    const before = await Promise.all(accounts.map(({ account, owned }) => accountView(t, account, owned.handles)));
    const inboxBefore = await (await t.app.request('/inbox', { headers: { cookie } })).text();

    const database = await target();
    const progress = capture();
    const output = await migrateDataCommand({ from: file, to: database.url }, loadConfig({}), progress.stream);
    const counts = await rowCounts(t);
    expect(output.value).toMatchObject({ rows: Object.values(counts).reduce((sum, rows) => sum + rows, 0), tables: counts });
    expect(progress.lines).toContain(`messages: ${counts.messages} rows\n`);

    const pg = appOnPostgres(database, new FakeClock(t.clock.now()));
    const after = await Promise.all(accounts.map(({ account, owned }) => accountView(pg, account, owned.handles)));
    expect(after).toEqual(before);
    const [converted] = await database.db.$client`
      select jsonb_typeof(tags) as tags, jsonb_typeof(custom_variables) as variables, opted_out from contacts where tags <> '[]'`;
    expect(converted).toEqual({ tags: 'array', variables: 'object', opted_out: false });
    const served = await pg.app.request(`/media/${mediaId}`);
    expect(Buffer.from(await served.arrayBuffer())).toEqual(PNG);
    const inbox = await pg.app.request('/inbox', { headers: { cookie } });
    expect(inbox.status).toBe(200);
    expect(await inbox.text()).toBe(inboxBefore);
    expect(await statusCommand(pg.deps)).toEqual(await statusCommand(t.deps));
  });

  it('gives new rows ids after every copied one, and after the ids SQLite handed out to rows since deleted', async () => {
    const file = databaseFile();
    const { t, accounts } = await filledSqlite(file);
    const [{ account }] = accounts as [(typeof accounts)[0]];
    const lastEvent = t.db.$client.prepare('select max(id) as id from account_events').get() as { id: number };
    t.db.$client.prepare('delete from account_events where id = ?').run(lastEvent.id);
    const maxIds = {
      messages: (t.db.$client.prepare('select max(id) as id from messages').get() as { id: number }).id,
      webhook_deliveries: (t.db.$client.prepare('select max(seq) as id from webhook_deliveries').get() as { id: number }).id,
    };

    const database = await target();
    await migrateDataCommand({ from: file, to: database.url }, loadConfig({}), capture().stream);

    const pg = appOnPostgres(database, new FakeClock(t.clock.now()));
    const sent = await pg.call('POST', '/api/send-message', account, { number: DAVE, content: 'after the move', status_callback: HOOK });
    expect(sent.status, show(sent.body)).toBe(202);
    const created = await pg.call('POST', '/api/v2/contacts', account, { number: '+12124567199', first_name: 'New' });
    expect(created.status, show(created.body)).toBeLessThan(300);
    const { id: accountId } = (await pg.deps.store.accounts.findByKeyId(account.api_key_id))!;
    const message = await pg.deps.store.messages.findByHandle(accountId, sent.body.message_handle);
    expect(message!.id).toBeGreaterThan(maxIds.messages);
    const [delivery] = await database.db.$client<{ seq: string }[]>`select max(seq) as seq from webhook_deliveries`;
    expect(Number(delivery!.seq)).toBeGreaterThan(maxIds.webhook_deliveries);
    const [event] = await database.db.$client<{ id: string }[]>`select max(id) as id from account_events`;
    expect(Number(event!.id)).toBeGreaterThan(lastEvent.id);
  });

  it('refuses a target that already holds data, in one line, and leaves it unchanged', async () => {
    const file = databaseFile();
    const { t } = await filledSqlite(file);
    const database = await target();
    await copySqliteToPostgres(t.db, database.db);
    const before = await postgresRowCounts(database);
    expect(before).toEqual(await rowCounts(t));

    const copyAgain = migrateDataCommand({ from: file, to: database.url }, loadConfig({}), capture().stream);
    await expect(copyAgain).rejects.toThrow(StartupError);
    await expect(copyAgain).rejects.toThrow(
      /^the PostgreSQL database "test_\w+" already holds data \(in accounts, [^\n]*\); migrate-data copies only into an empty database$/,
    );
    expect(await postgresRowCounts(database)).toEqual(before);
  });

  it('leaves the target empty when a row fails midway, and says which table and rows', async () => {
    const file = databaseFile();
    const { t } = await filledSqlite(file);
    // SQLite keeps a NUL character in text; PostgreSQL refuses it. Messages come after accounts, contacts and groups.
    t.db.$client.prepare("update messages set content = 'a' || char(0) || 'b' where id = (select max(id) from messages)").run();
    const database = await target();
    const progress = capture();

    const copy = migrateDataCommand({ from: file, to: database.url }, loadConfig({}), progress.stream);
    const count = (await rowCounts(t)).messages;
    await expect(copy).rejects.toThrow(
      `copying messages failed in the rows of rowid 1 to ${count}: invalid byte sequence for encoding "UTF8": 0x00; nothing was copied, the PostgreSQL database is left as it was`,
    );
    expect(progress.lines).toContain('accounts: 2 rows\n');
    const nothing = Object.fromEntries(Object.keys(await rowCounts(t)).map((table) => [table, 0]));
    expect(await postgresRowCounts(database)).toEqual(nothing);
  });

  it('copies a table larger than a batch in several, in order', async () => {
    const file = databaseFile();
    const { t } = await filledSqlite(file);
    const database = await target();
    const seen: string[] = [];
    await copySqliteToPostgres(t.db, database.db, {
      batchRows: 2,
      onProgress: ({ table, copied, total }) => seen.push(`${table} ${copied}/${total}`),
    });
    const total = (await rowCounts(t)).messages!;
    expect(seen.filter((line) => line.startsWith('messages '))).toEqual(
      Array.from({ length: Math.ceil(total / 2) }, (_, index) => `messages ${Math.min(2 * (index + 1), total)}/${total}`),
    );
    const ids = await database.db.$client<{ id: string }[]>`select id from messages order by id`;
    const sqliteIds = t.db.$client.prepare('select id from messages order by id').all() as { id: number }[];
    expect(ids.map((row) => Number(row.id))).toEqual(sqliteIds.map((row) => row.id));
  });

  it('refuses a missing file without creating it', async () => {
    const file = databaseFile();
    const copy = migrateDataCommand({ from: file, to: 'postgres://nobody@127.0.0.1:1/x' }, loadConfig({}), capture().stream);
    await expect(copy).rejects.toThrow(`cannot copy ${file}: no such file`);
  });
});
