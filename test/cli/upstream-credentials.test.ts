import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { cliDatabase } from '../helpers/cli-commands.ts';
import { type CliResult, describeRun, runCli } from '../helpers/process.ts';

// `accounts create --upstream-key-id/--upstream-secret-file` and `accounts upstream set`, as real processes on both backends.

const dir = mkdtempSync(join(tmpdir(), 'textrelay-upstream-cli-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** A relay's settings: the relay's own provider account is `relay-key`. */
const RELAY_ENV = {
  TEXTRELAY_TRANSPORT: 'upstream',
  TEXTRELAY_UPSTREAM_URL: 'https://provider.example.com',
  TEXTRELAY_UPSTREAM_KEY_ID: 'relay-key',
  TEXTRELAY_UPSTREAM_SECRET: 'relay-secret',
  TEXTRELAY_PUBLIC_URL: 'https://relay.example.com',
};

/** A provider account's secret in a file of its own, as the commands take it (never on the command line, which `ps` shows). */
function secretFile(secret: string): string {
  const file = join(dir, `${secret}.secret`);
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  return file;
}

/** Exit 1 and one `textrelay: ...` line on stderr, nothing on stdout. */
function expectRefused(result: CliResult, said: RegExp): void {
  expect(result.code, describeRun(result)).toBe(1);
  expect(result.stdout).toBe('');
  expect(result.stderr).toMatch(/^textrelay: [^\n]+\n$/);
  expect(result.stderr).toMatch(said);
}

describe.each(['sqlite', 'postgres'] as const)('accounts and provider accounts on %s', (backend) => {
  // Each command is a process of its own: seconds each on a loaded machine.
  it('refuses a second account on one provider account, its own or the relay’s, at create and at upstream set', async () => {
    const db = await cliDatabase(backend, dir);
    const cli = (args: string[], env: Record<string, string> = {}) => runCli([...args, '--db', db], { LOG_LEVEL: 'warn', ...env });
    const ok = async (args: string[], env?: Record<string, string>) => {
      const result = await cli(args, env);
      expect(result.code, describeRun(result)).toBe(0);
      return result;
    };

    await ok([
      'accounts',
      'create',
      '--email',
      'a@example.com',
      '--upstream-key-id',
      'key-a',
      '--upstream-secret-file',
      secretFile('secret-a'),
    ]);
    expectRefused(
      await cli([
        'accounts',
        'create',
        '--email',
        'b@example.com',
        '--upstream-key-id',
        'key-a',
        '--upstream-secret-file',
        secretFile('other'),
      ]),
      /b@example\.com cannot use provider account key-a: a@example\.com is on it/,
    );

    // On the relay's credentials: the first tenant is welcome, a second is refused.
    await ok(['accounts', 'create', '--email', 'b@example.com'], RELAY_ENV);
    expectRefused(
      await cli(['accounts', 'create', '--email', 'c@example.com'], RELAY_ENV),
      /c@example\.com cannot use the relay's provider account \(TEXTRELAY_UPSTREAM_KEY_ID relay-key\): b@example\.com is on it/,
    );
    expectRefused(
      await cli(['accounts', 'upstream', 'set', '--email', 'b@example.com', '--key-id', 'key-a', '--secret-file', secretFile('secret-a')]),
      /b@example\.com cannot use provider account key-a: a@example\.com is on it/,
    );

    const moved = await ok([
      'accounts',
      'upstream',
      'set',
      '--email',
      'b@example.com',
      '--key-id',
      'key-b',
      '--secret-file',
      secretFile('secret-b'),
      '--json',
    ]);
    expect(JSON.parse(moved.stdout)).toEqual({ email: 'b@example.com', upstream_key_id: 'key-b' });
  }, 240_000);
});

describe('a provider account secret is never on the command line', () => {
  const db = join(dir, 'flags.db');
  const cli = (args: string[]) => runCli([...args, '--db', db], { LOG_LEVEL: 'warn' });

  it('refuses --upstream-secret and --secret with a value, naming the flag to use instead', async () => {
    const created = await cli([
      'accounts',
      'create',
      '--email',
      'a@example.com',
      '--upstream-key-id',
      'key-a',
      '--upstream-secret',
      'sk_a',
    ]);
    expect(created.code, describeRun(created)).toBe(2);
    expect(created.stderr.split('\n')[0]).toBe(
      '--upstream-secret would show the secret to every user of this machine (ps): give it in a file with --upstream-secret-file FILE',
    );
    const moved = await cli(['accounts', 'upstream', 'set', '--email', 'a@example.com', '--key-id', 'key-a', '--secret', 'sk_a']);
    expect(moved.code, describeRun(moved)).toBe(2);
    expect(moved.stderr.split('\n')[0]).toBe(
      '--secret would show the secret to every user of this machine (ps): give it in a file with --secret-file FILE',
    );
  }, 120_000);

  it('stores the secret read from the file, and refuses a file it cannot read or an empty one', async () => {
    const missing = join(dir, 'missing.secret');
    const unread = await cli([
      'accounts',
      'create',
      '--email',
      'b@example.com',
      '--upstream-key-id',
      'key-b',
      '--upstream-secret-file',
      missing,
    ]);
    expect(unread.code, describeRun(unread)).toBe(2);
    expect(unread.stderr).toContain(`--upstream-secret-file: cannot read ${missing} (ENOENT)`);
    const empty = join(dir, 'empty.secret');
    writeFileSync(empty, '\n');
    const blank = await cli(['accounts', 'upstream', 'set', '--email', 'b@example.com', '--key-id', 'key-b', '--secret-file', empty]);
    expect(blank.code, describeRun(blank)).toBe(2);
    expect(blank.stderr).toContain(`--secret-file: ${empty} is empty`);
    const ok = await cli([
      'accounts',
      'create',
      '--email',
      'b@example.com',
      '--upstream-key-id',
      'key-b',
      '--upstream-secret-file',
      secretFile('sk_b'),
      '--json',
    ]);
    expect(ok.code, describeRun(ok)).toBe(0);
    const stored = new Database(db, { readonly: true });
    expect(stored.prepare('select upstream_secret from accounts where email = ?').pluck().get('b@example.com')).toBe('sk_b');
    stored.close();
  }, 120_000);
});
