import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { jsonRequest, readReply } from '../helpers/http.ts';
import { type CliResult, describeRun, killAll, type RunningServer, runCli, spawnCli, startServer } from '../helpers/process.ts';

// Real child processes running `node bin/textrelay.js ...` (what `npm start` and `npx textrelay` run),
// each on its own SQLite file in a fresh temporary folder.

type Credentials = { api_key_id: string; api_secret_key: string };
type CreatedAccount = Credentials & { email: string; plan: string; numbers: string[]; receive_webhook: string | null };

const E164 = /^\+[1-9]\d{7,14}$/;

type Workspace = { dir: string; dbFile: string; env: Record<string, string> };
const workspaces: string[] = [];

/** A fresh temporary folder and the environment pointing the CLI at a database file inside it. */
function workspace(): Workspace {
  const dir = mkdtempSync(join(tmpdir(), 'textrelay-cli-'));
  workspaces.push(dir);
  const dbFile = join(dir, 'textrelay.db');
  return { dir, dbFile, env: { TEXTRELAY_DB: dbFile, LOG_LEVEL: 'warn' } };
}

// Sequential tests share these (reset before each); the concurrent ones make their own.
let dir: string;
let dbFile: string;
let env: Record<string, string>;

function sequentialFixture() {
  beforeEach(() => {
    ({ dir, dbFile, env } = workspace());
  });
  // Whatever a failing test left running is killed before the next starts.
  afterEach(killAll);
}

afterAll(async () => {
  await killAll();
  for (const folder of workspaces) rmSync(folder, { recursive: true, force: true });
});

/** The single JSON document a `--json` command printed, checking nothing else went to stdout. */
function singleJson(result: CliResult): any {
  expect(result.code, describeRun(result)).toBe(0);
  const lines = result.stdout.split('\n').filter((line) => line.trim() !== '');
  expect(lines, describeRun(result)).toHaveLength(1);
  return JSON.parse(lines[0]!);
}

async function createAccount(
  email: string,
  extra: string[] = [],
  inEnv: Record<string, string | undefined> = env,
): Promise<CreatedAccount> {
  return singleJson(await runCli(['accounts', 'create', '--email', email, ...extra, '--json'], inEnv));
}

function headers(credentials: Credentials): Record<string, string> {
  return { 'svc-api-key-id': credentials.api_key_id, 'svc-api-secret-key': credentials.api_secret_key };
}

/** `call` of test/helpers/app.ts, against a running server. */
async function api(server: RunningServer, method: string, path: string, credentials: Credentials, body?: unknown) {
  return readReply(await fetch(`${server.url}${path}`, jsonRequest(method, headers(credentials), body)));
}

// Each child costs about a second of CPU to start (tsx compiles the sources); on a loaded 2-core box
// that stretches a lot, so the tests that start several get more than the 30 s default.
const SLOW = 90_000;

const UNAUTHORIZED = { status: 'ERROR', error_code: 4010, error_message: 'Invalid or missing API credentials' };

describe('accounts create --json', () => {
  sequentialFixture();

  it(
    'prints exactly one JSON object with the account, its secret and its numbers',
    async () => {
      // At the default LOG_LEVEL (info) too, stdout carries the JSON object and nothing else.
      const account = await createAccount(
        'a@example.com',
        ['--plan', 'sapphire', '--numbers', '3', '--receive-webhook', 'http://127.0.0.1:9/hook'],
        { ...env, LOG_LEVEL: undefined },
      );
      expect(Object.keys(account).sort()).toEqual(['api_key_id', 'api_secret_key', 'email', 'numbers', 'plan', 'receive_webhook']);
      expect(account).toMatchObject({ email: 'a@example.com', plan: 'sapphire', receive_webhook: 'http://127.0.0.1:9/hook' });
      expect(account.api_key_id).toEqual(expect.any(String));
      expect(account.api_key_id.length).toBeGreaterThan(8);
      expect(account.api_secret_key).toEqual(expect.any(String));
      expect(account.api_secret_key.length).toBeGreaterThanOrEqual(32);
      expect(account.numbers).toHaveLength(3);
      for (const number of account.numbers) expect(number).toMatch(E164);
      expect(new Set(account.numbers).size).toBe(3);

      // The secret is stored hashed: its text appears nowhere in the database files.
      for (const file of [dbFile, `${dbFile}-wal`]) {
        if (existsSync(file)) expect(readFileSync(file).includes(account.api_secret_key)).toBe(false);
      }

      // Without --plan the account is on blue; without --receive-webhook there is none.
      const plain = await createAccount('b@example.com');
      expect(plain).toMatchObject({ email: 'b@example.com', plan: 'blue', receive_webhook: null });
      expect(plain.numbers.length).toBeGreaterThanOrEqual(1);
      for (const number of plain.numbers) expect(number).toMatch(E164);
      expect(plain.numbers.filter((n) => account.numbers.includes(n))).toEqual([]);
      expect(plain.api_key_id).not.toBe(account.api_key_id);

      // The same email again: exit 1 with a message, nothing on stdout.
      const duplicate = await runCli(['accounts', 'create', '--email', 'a@example.com', '--json'], env);
      expect(duplicate.code, describeRun(duplicate)).toBe(1);
      expect(duplicate.stderr).toContain('a@example.com');
      expect(duplicate.stdout).toBe('');
    },
    SLOW,
  );
});

describe('serve', () => {
  sequentialFixture();

  it(
    'serves accounts made before and during its run, stops cleanly on SIGTERM and keeps the data',
    async () => {
      const first = await createAccount('a@example.com', ['--plan', 'sapphire', '--numbers', '3']);

      const server = await startServer(['--port', '0', '--db', dbFile], env);
      expect(server.port).toBeGreaterThan(0);
      // The database already has an account: no development account is made or printed.
      expect(server.banner).toBe('');

      const sent = await api(server, 'POST', '/api/send-message', first, { number: '+14155550100', content: 'hi' });
      expect(sent.status, JSON.stringify(sent.body)).toBe(202);
      expect(sent.body).toMatchObject({ status: 'QUEUED', content: 'hi', number: '+14155550100' });
      expect(first.numbers).toContain(sent.body.from_number);
      const handle: string = sent.body.message_handle;
      expect(handle).toMatch(/^[0-9a-f-]{36}$/);

      const contacts = await api(server, 'GET', '/accounts/contacts', first);
      expect(contacts.status, JSON.stringify(contacts.body)).toBe(200);

      const wrongSecret = await api(server, 'GET', '/accounts/contacts', { ...first, api_secret_key: `${first.api_secret_key}x` });
      expect(wrongSecret.status).toBe(401);
      expect(wrongSecret.body).toMatchObject(UNAUTHORIZED);
      const wrongSend = await api(
        server,
        'POST',
        '/api/send-message',
        { ...first, api_secret_key: 'sk_wrong' },
        { number: '+14155550100', content: 'hi' },
      );
      expect(wrongSend.status).toBe(401);

      // The CLI writes to the same file while the server runs, and the server sees the account at once.
      const second = await createAccount('b@example.com');
      const secondSent = await api(server, 'POST', '/api/send-message', second, { number: '+14155550101', content: 'from b' });
      expect(secondSent.status, JSON.stringify(secondSent.body)).toBe(202);
      expect(second.numbers).toContain(secondSent.body.from_number);
      // Accounts do not see each other's messages.
      expect((await api(server, 'GET', `/api/status?handle=${handle}`, second)).status).toBe(404);

      const exit = await server.stop('SIGTERM', 5_000);
      expect(exit, server.stderr()).toEqual({ code: 0, signal: null });

      const again = await startServer(['--port', '0', '--db', dbFile], env);
      expect(again.banner).toBe('');
      const found = await api(again, 'GET', `/api/status?handle=${handle}`, first);
      expect(found.status, JSON.stringify(found.body)).toBe(200);
      expect(found.body).toMatchObject({ message_handle: handle, content: 'hi', number: '+14155550100' });
      const foundSecond = await api(again, 'GET', `/api/status?handle=${secondSent.body.message_handle}`, second);
      expect(foundSecond.status).toBe(200);
      expect(await again.stop()).toEqual({ code: 0, signal: null });
    },
    SLOW,
  );

  it(
    'on an empty database (as `npm start`) prints a development account once, and its credentials work',
    async () => {
      // `npm start` is `node bin/textrelay.js serve` (plus V8 memory flags) with settings from the environment only; the folder does not exist yet.
      const nested = join(dir, 'data', 'textrelay.db');
      const startEnv = { ...env, TEXTRELAY_DB: nested, PORT: '0' };
      const server = await startServer([], startEnv);
      expect(existsSync(nested)).toBe(true);

      const field = (name: string) => {
        const match = server.banner.match(new RegExp(`^\\s*${name}:\\s*(\\S.*?)\\s*$`, 'm'));
        expect(match, `no "${name}:" line in:\n${server.banner}`).not.toBeNull();
        return match![1]!;
      };
      const email = field('email');
      expect(email).toMatch(/^[^@\s]+@[^@\s]+$/);
      expect(['blue', 'sapphire']).toContain(field('plan'));
      const numbers = field('numbers').split(/,\s*/);
      expect(numbers.length).toBeGreaterThanOrEqual(1);
      for (const number of numbers) expect(number).toMatch(E164);
      const credentials = { api_key_id: field('svc-api-key-id'), api_secret_key: field('svc-api-secret-key') };

      expect((await api(server, 'GET', '/accounts/contacts', credentials)).status).toBe(200);
      const sent = await api(server, 'POST', '/api/send-message', credentials, { number: '+14155550100', content: 'dev' });
      expect(sent.status, JSON.stringify(sent.body)).toBe(202);
      expect(numbers).toContain(sent.body.from_number);
      expect(await server.stop()).toEqual({ code: 0, signal: null });

      const again = await startServer([], startEnv);
      expect(again.banner).toBe('');
      expect(again.stdout()).not.toContain(credentials.api_secret_key);
      expect((await api(again, 'GET', '/accounts/contacts', credentials)).status).toBe(200);
      expect(await again.stop()).toEqual({ code: 0, signal: null });
    },
    SLOW,
  );
});

describe('accounts list and rotate-secret', () => {
  sequentialFixture();

  it(
    'lists accounts without secrets; rotating makes the old secret fail and the new one work at once',
    async () => {
      // Started on an empty file, so the development account exists beside the one made here.
      const server = await startServer(['--port', '0'], env);
      const dev = {
        api_key_id: server.banner.match(/svc-api-key-id:\s*(\S+)/)?.[1] ?? '',
        api_secret_key: server.banner.match(/svc-api-secret-key:\s*(\S+)/)?.[1] ?? '',
      };
      expect(dev.api_secret_key, server.banner).not.toBe('');
      const a = await createAccount('a@example.com', ['--plan', 'sapphire', '--receive-webhook', 'http://127.0.0.1:9/hook']);

      const [listRun, unknown] = await Promise.all([
        runCli(['accounts', 'list', '--json'], env),
        runCli(['accounts', 'rotate-secret', '--email', 'nobody@example.com', '--json'], env),
      ]);
      const listed = singleJson(listRun);
      expect(Array.isArray(listed)).toBe(true);
      expect(listed).toHaveLength(2);
      const byKey = new Map<string, any>(listed.map((entry: any) => [entry.api_key_id, entry]));
      expect(byKey.get(a.api_key_id)).toMatchObject({ email: 'a@example.com', plan: 'sapphire', numbers: a.numbers });
      expect(byKey.has(dev.api_key_id)).toBe(true);
      for (const entry of listed) {
        expect(entry).not.toHaveProperty('api_secret_key');
        expect(Object.keys(entry).join(',')).not.toMatch(/secret|hash/i);
      }
      for (const secret of [a.api_secret_key, dev.api_secret_key]) expect(listRun.stdout).not.toContain(secret);

      // rotate-secret for an email nobody has: exit 1 with a message.
      expect(unknown.code, describeRun(unknown)).toBe(1);
      expect(unknown.stderr).toContain('nobody@example.com');
      expect(unknown.stdout).toBe('');

      expect((await api(server, 'GET', '/accounts/contacts', a)).status).toBe(200);
      const rotated = singleJson(await runCli(['accounts', 'rotate-secret', '--email', 'a@example.com', '--json'], env));
      expect(rotated).toMatchObject({ email: 'a@example.com', api_key_id: a.api_key_id });
      expect(rotated.api_secret_key).toEqual(expect.any(String));
      expect(rotated.api_secret_key).not.toBe(a.api_secret_key);

      const old = await api(server, 'GET', '/accounts/contacts', a);
      expect(old.status).toBe(401);
      expect(old.body).toMatchObject(UNAUTHORIZED);
      const fresh = { api_key_id: a.api_key_id, api_secret_key: rotated.api_secret_key };
      expect((await api(server, 'GET', '/accounts/contacts', fresh)).status).toBe(200);
      const sent = await api(server, 'POST', '/api/send-message', fresh, { number: '+14155550100', content: 'rotated' });
      expect(sent.status, JSON.stringify(sent.body)).toBe(202);
      // The other account is untouched.
      expect((await api(server, 'GET', '/accounts/contacts', dev)).status).toBe(200);
      expect(await server.stop()).toEqual({ code: 0, signal: null });
    },
    SLOW,
  );
});

describe('accounts with given lines', () => {
  sequentialFixture();

  const [LINE_1, LINE_2, LINE_3] = ['+12025550141', '+12025550142', '+12025550143'];
  const run = (args: string[]) => runCli(args, env);
  const linesOf = async (email: string) => singleJson(await run(['accounts', 'lines', 'list', '--email', email, '--json'])).numbers;

  it(
    'gives an account real lines, edits them, and never lets two accounts own one line',
    async () => {
      const v = await createAccount('v@example.com', ['--numbers', `${LINE_1}, ${LINE_2}`]);
      expect(v.numbers).toEqual([LINE_1, LINE_2]);

      const taken = await run(['accounts', 'create', '--email', 'a@example.com', '--numbers', `${LINE_3},${LINE_2}`]);
      expect(taken.code, describeRun(taken)).toBe(1);
      expect(taken.stderr).toContain(`${LINE_2} is already a line of account v@example.com`);
      const listed = singleJson(await run(['accounts', 'list', '--json']));
      expect(
        listed.map((account: CreatedAccount) => account.email),
        'the refused account was not created',
      ).toEqual(['v@example.com']);

      for (const malformed of ['+1202', 'abc', '0', '101']) {
        const refused = await run(['accounts', 'create', '--email', 'a@example.com', '--numbers', malformed]);
        expect(refused.code, describeRun(refused)).toBe(2);
        expect(refused.stderr).toMatch(/--numbers/);
      }

      const a = await createAccount('a@example.com', ['--numbers', LINE_3]);
      expect(a.numbers).toEqual([LINE_3]);
      const stolen = await run(['accounts', 'lines', 'add', '--email', 'a@example.com', LINE_1]);
      expect(stolen.code, describeRun(stolen)).toBe(1);
      expect(await linesOf('v@example.com')).toEqual([LINE_1, LINE_2]);

      // An end user writes to V (sandbox): pinned to a line, which then cannot be taken away.
      const inbound = await run(['inbound', '--email', 'v@example.com', '--from', '+14155550123', '--content', 'hi', '--json']);
      expect(inbound.code, describeRun(inbound)).toBe(0);
      const pinned = JSON.parse(inbound.stdout).to_number as string;
      const refusedRemoval = await run(['accounts', 'lines', 'remove', '--email', 'v@example.com', pinned]);
      expect(refusedRemoval.code, describeRun(refusedRemoval)).toBe(1);
      expect(refusedRemoval.stderr).toContain('pinned end users: 1');

      const free = pinned === LINE_1 ? LINE_2 : LINE_1;
      singleJson(await run(['accounts', 'lines', 'remove', '--email', 'v@example.com', free, '--json']));
      singleJson(await run(['accounts', 'lines', 'add', '--email', 'a@example.com', free, '--json']));
      expect(await linesOf('v@example.com')).toEqual([pinned]);
      expect(await linesOf('a@example.com')).toEqual([LINE_3, free]);
    },
    SLOW,
  );
});

describe('migrate', () => {
  sequentialFixture();

  it(
    'creates the database file (and its folder) and can run again',
    async () => {
      const file = join(dir, 'nested', 'deeper', 'migrated.db');
      const first = await runCli(['migrate', '--db', file], { LOG_LEVEL: 'warn' });
      expect(first.code, describeRun(first)).toBe(0);
      expect(existsSync(file)).toBe(true);
      const second = await runCli(['migrate', '--db', file], { LOG_LEVEL: 'warn' });
      expect(second.code, describeRun(second)).toBe(0);
    },
    SLOW,
  );
});

// These end on their own (runCli kills anything past its timeout), so they run side by side,
// each on its own folder, and no afterEach may kill a neighbour's process.
describe.concurrent('command errors', () => {
  it(
    'accounts create without --email: exit 2, usage on stderr',
    async () => {
      const { env } = workspace();
      const result = await runCli(['accounts', 'create', '--json'], env);
      expect(result.code, describeRun(result)).toBe(2);
      expect(result.stderr).toMatch(/usage/i);
      expect(result.stderr).toContain('--email');
      expect(result.stdout).toBe('');
    },
    SLOW,
  );

  it(
    'accounts create --email not-an-email: exit 2',
    async () => {
      const { env } = workspace();
      const result = await runCli(['accounts', 'create', '--email', 'not-an-email', '--json'], env);
      expect(result.code, describeRun(result)).toBe(2);
      expect(result.stderr).toContain('--email');
      expect(result.stdout).toBe('');
    },
    SLOW,
  );

  it(
    'an unknown command: exit 2 with usage',
    async () => {
      const { env } = workspace();
      const result = await runCli(['frobnicate'], env);
      expect(result.code, describeRun(result)).toBe(2);
      expect(result.stderr).toMatch(/usage/i);
    },
    SLOW,
  );

  it(
    'serve with PORT=abc in the environment: exit 1 with a message naming PORT, never listening',
    async () => {
      const { env } = workspace();
      const spawned = spawnCli(['serve'], { ...env, PORT: 'abc' });
      // The helper reports the early exit instead of waiting for a listening line that never comes.
      await expect(spawned.waitForLine(/^textrelay listening on /, 15_000)).rejects.toThrow(/exited/);
      expect((await spawned.exited).code, spawned.stderr()).toBe(1);
      expect(spawned.stderr()).toMatch(/(^|[^A-Z_])PORT([^A-Z_]|$)/m);
    },
    SLOW,
  );
});
