import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { closeDatabase } from '../../src/db/sqlite/connection.ts';
import { makeTestApp, type TestAccount } from '../helpers/app.ts';
import { ALICE, BOB, CAROL, distinctNumbers, UUID_LOWER } from '../helpers/fixtures.ts';
import { describeRun, killAll, runCli } from '../helpers/process.ts';

// `textrelay inbound` as a real child process (node bin/textrelay.js), on a temporary database file.

const folders: string[] = [];
const [PERSON] = distinctNumbers(1) as [string];
// Each child compiles the sources with tsx on start: several seconds on a loaded box.
const SLOW = 90_000;

afterEach(killAll);
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

/** A database file with one sapphire account made by the CLI, and the account as the HTTP tests use it. */
async function workspace() {
  const folder = mkdtempSync(join(tmpdir(), 'textrelay-inbound-'));
  folders.push(folder);
  const env = { TEXTRELAY_DB: join(folder, 'textrelay.db'), LOG_LEVEL: 'warn' };
  const created = await runCli(['accounts', 'create', '--email', 'shop@example.com', '--plan', 'sapphire', '--json'], env);
  expect(created.code, describeRun(created)).toBe(0);
  const account = JSON.parse(created.stdout);
  const asTestAccount = {
    ...account,
    headers: { 'svc-api-key-id': account.api_key_id, 'svc-api-secret-key': account.api_secret_key },
  } as TestAccount;
  return { env, account: asTestAccount };
}

/** Runs `work` against the database file through the real app, then closes it. */
async function withApp<T>(file: string, work: (t: ReturnType<typeof makeTestApp>) => Promise<T>): Promise<T> {
  const t = makeTestApp({ database: file });
  try {
    return await work(t);
  } finally {
    closeDatabase(t.db);
  }
}

describe('textrelay inbound', () => {
  it(
    'stores an end user message as POST /sandbox/inbound would, one-to-one and in a group',
    async () => {
      const { env, account } = await workspace();

      const single = await runCli(
        ['inbound', '--email', 'shop@example.com', '--from', '+1 212 456 7000', '--content', 'hello from the CLI', '--json'],
        env,
      );
      expect(single.code, describeRun(single)).toBe(0);
      const message = JSON.parse(single.stdout);
      expect(message).toMatchObject({
        status: 'RECEIVED',
        is_outbound: false,
        from_number: PERSON,
        content: 'hello from the CLI',
        message_type: 'message',
      });
      expect(account.numbers).toContain(message.to_number);

      const groupId = await withApp(env.TEXTRELAY_DB, async (t) => {
        const sent = await t.call('POST', '/api/send-group-message', account, { numbers: [ALICE, BOB], content: 'team' });
        expect(sent.status).toBe(202);
        return sent.body.group_id as string;
      });

      // Without --json: the handle alone, for scripts.
      const inGroup = await runCli(
        ['inbound', '--email', 'shop@example.com', '--from', BOB, '--content', 'me too', '--group-id', groupId],
        env,
      );
      expect(inGroup.code, describeRun(inGroup)).toBe(0);
      const handle = inGroup.stdout.trim();
      expect(handle).toMatch(UUID_LOWER);

      await withApp(env.TEXTRELAY_DB, async (t) => {
        const status = await t.call('GET', `/api/status?handle=${handle}`, account);
        expect(status.body).toMatchObject({
          status: 'RECEIVED',
          from_number: BOB,
          group_id: groupId,
          message_type: 'group',
          content: 'me too',
        });
        const listed = await t.call('GET', `/accounts/messages?number=${encodeURIComponent(PERSON)}`, account);
        expect(listed.body.messages.map((m: any) => m.message_handle)).toEqual([message.message_handle]);
      });
    },
    SLOW,
  );

  it(
    'refuses what the route refuses, with a message on stderr, exit 1 and nothing written',
    async () => {
      const { env, account } = await workspace();
      const attempts = [
        [['--email', 'shop@example.com', '--from', 'not-a-number', '--content', 'x'], "--from must be the sender's E.164 number"],
        [['--email', 'shop@example.com', '--from', PERSON], 'Either content or media_url is required'],
        [['--email', 'nobody@example.com', '--from', PERSON, '--content', 'x'], 'nobody@example.com'],
        [['--email', 'shop@example.com', '--from', CAROL, '--content', 'x', '--group-id', 'no-such-group'], 'no-such-group'],
      ] as const;
      const upstreamEnv = {
        ...env,
        TEXTRELAY_TRANSPORT: 'upstream',
        TEXTRELAY_UPSTREAM_URL: 'http://127.0.0.1:9',
        TEXTRELAY_UPSTREAM_KEY_ID: 'key',
        TEXTRELAY_UPSTREAM_SECRET: 'secret',
        TEXTRELAY_PUBLIC_URL: 'http://127.0.0.1:9',
        TEXTRELAY_ALLOW_PRIVATE_CALLBACKS: 'true',
      };
      const upstreamAttempt = [['--email', 'shop@example.com', '--from', PERSON, '--content', 'x'], 'sandbox', upstreamEnv] as const;
      // Independent refusals: run side by side, since each child takes seconds to start.
      const results = await Promise.all(
        [...attempts.map(([args, expected]) => [args, expected, env] as const), upstreamAttempt].map(async ([args, expected, inEnv]) => ({
          expected,
          result: await runCli(['inbound', ...args, '--json'], inEnv),
        })),
      );
      for (const { expected, result } of results) {
        expect(result.code, describeRun(result)).toBe(1);
        expect(result.stderr, describeRun(result)).toContain(expected);
        expect(result.stdout).toBe('');
      }

      await withApp(env.TEXTRELAY_DB, async (t) => {
        const listed = await t.call('GET', '/accounts/messages', account);
        expect(listed.body.messages).toEqual([]);
      });
    },
    SLOW,
  );
});
