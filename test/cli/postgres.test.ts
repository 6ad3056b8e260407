import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { jsonRequest, readReply } from '../helpers/http.ts';
import { emptyPostgresDatabase, freshPostgresDatabase, type TestPostgresDatabase } from '../helpers/postgres-database.ts';
import { killAll, REPO_ROOT, runCli, spawnCli, startServer } from '../helpers/process.ts';

// Every command of the CLI, as real processes, on a real PostgreSQL named by --db or TEXTRELAY_DATABASE_URL.

const opened: TestPostgresDatabase[] = [];
afterEach(killAll);
afterAll(async () => {
  await Promise.all(opened.map((database) => database.close()));
});

async function database(kind: 'migrated' | 'empty' = 'migrated'): Promise<TestPostgresDatabase> {
  const created = await (kind === 'migrated' ? freshPostgresDatabase() : emptyPostgresDatabase());
  opened.push(created);
  return created;
}

const QUIET = { LOG_LEVEL: 'warn' };

async function json(args: string[], env: Record<string, string>) {
  const result = await runCli([...args, '--json'], { ...QUIET, ...env });
  expect(result.stderr, result.stdout).toBe('');
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout);
}

describe('the CLI on PostgreSQL', () => {
  it('migrates an empty database named by --db, and again finds nothing to do', async () => {
    const target = await database('empty');
    const name = new URL(target.url).pathname.slice(1);
    for (let run = 0; run < 2; run++) {
      const result = await runCli(['migrate', '--db', target.url], QUIET);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toMatch(new RegExp(`^Migrations applied to PostgreSQL database "${name}" at 127\\.0\\.0\\.1:\\d+\\n$`));
    }
    const [tables] = await target.db.execute<{ count: string }>(
      sql`select count(*) from information_schema.tables where table_name = 'messages'`,
    );
    expect(Number(tables?.count)).toBe(1);
  });

  it('runs accounts, inbound, status, webhooks and tail against TEXTRELAY_DATABASE_URL', async () => {
    const target = await database();
    const env = { TEXTRELAY_DATABASE_URL: target.url };
    const account = await json(['accounts', 'create', '--email', 'pg@example.com', '--numbers', '+14155550111'], env);
    expect(account).toMatchObject({ email: 'pg@example.com', numbers: ['+14155550111'] });
    expect((await json(['accounts', 'list'], env)).map((listed: { email: string }) => listed.email)).toEqual(['pg@example.com']);
    const lines = await json(['accounts', 'lines', 'add', '--email', 'pg@example.com', '+14155550112'], env);
    expect(lines.numbers).toEqual(['+14155550111', '+14155550112']);

    const tail = spawnCli(['tail', '--json'], { ...QUIET, ...env });
    await new Promise<void>((resolve) => {
      const check = () => (tail.stderr().includes('Following PostgreSQL database') ? resolve() : setTimeout(check, 20));
      check();
    });
    const inbound = await json(['inbound', '--email', 'pg@example.com', '--from', '+14155550199', '--content', 'hello from pg'], env);
    expect(inbound.message_handle).toEqual(expect.any(String));
    const followed = JSON.parse((await tail.waitForLine(/^.*"message_handle".*$/, 10_000))[0]);
    expect(followed).toMatchObject({ message_handle: inbound.message_handle });
    tail.child.kill('SIGINT');
    expect((await tail.exited).code).toBe(0);

    const status = await json(['status'], env);
    expect(status.messages.RECEIVED).toBe(1);
    expect(await json(['webhooks', 'list'], env)).toEqual(expect.any(Array));
  });

  it('serves the API from PostgreSQL: a send through the sandbox is read back and advances', async () => {
    const target = await database();
    const server = await startServer(['--port', '0', '--db', target.url], { ...QUIET, TEXTRELAY_SANDBOX_STEP_MS: '20' });
    const credentials = server.banner.match(/svc-api-key-id:\s+(\S+)\n\s+svc-api-secret-key:\s+(\S+)/);
    expect(credentials, server.banner).not.toBeNull();
    const headers = { 'svc-api-key-id': credentials![1]!, 'svc-api-secret-key': credentials![2]! };
    const sent = await readReply(
      await fetch(`${server.url}/api/send-message`, jsonRequest('POST', headers, { number: '+14155550123', content: 'hi' })),
    );
    expect(sent.status).toBe(202);
    let status = '';
    for (let tries = 0; tries < 100 && status !== 'READ'; tries++) {
      const read = await readReply(await fetch(`${server.url}/api/status?handle=${sent.body.message_handle}`, jsonRequest('GET', headers)));
      status = read.body.status;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(status).toBe('READ');
    const ready = await fetch(`${server.url}/readyz`);
    expect(ready.status).toBe(200);
    expect((await server.stop()).code).toBe(0);
  });

  describe('refuses to start, in one line and without a stack trace', () => {
    async function refusal(url: string) {
      const result = await runCli(['status', '--db', url], QUIET);
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr.trim().split('\n'), result.stderr).toHaveLength(1);
      expect(result.stderr).not.toMatch(/\n\s+at /);
      return result.stderr.trim();
    }

    it('a URL that is not PostgreSQL’s', async () => {
      const result = await runCli(['status', '--db', 'mysql://root@127.0.0.1/textrelay'], QUIET);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/TEXTRELAY_DATABASE_URL: must be a postgres:\/\/ URL or a SQLite file path/);
    });

    it.each([
      ['TEXTRELAY_DATABASE_URL', 'postgres//textrelay:s3cret-pw@127.0.0.1:5432/textrelay'],
      ['TEXTRELAY_DATABASE_URL', 'postgresql:/textrelay:s3cret-pw@127.0.0.1:5432/textrelay'],
      ['TEXTRELAY_DB', 'postgres:textrelay:s3cret-pw@127.0.0.1/textrelay'],
      ['TEXTRELAY_DB', 'textrelay:s3cret-pw@127.0.0.1/textrelay'],
    ])('a mistyped URL in %s, %s: no file, no account, no password', async (variable, url) => {
      const dir = mkdtempSync(join(tmpdir(), 'textrelay-mistyped-url-'));
      try {
        const program = { command: process.execPath, args: [join(REPO_ROOT, 'bin/textrelay.js')], cwd: dir };
        const result = await runCli(['serve'], { LOG_LEVEL: 'info', PORT: '0', [variable]: url }, 30_000, program);
        expect(result.code, result.stderr).toBe(1);
        expect(result.stdout).toBe('');
        expect(result.stderr.trim().split('\n'), result.stderr).toHaveLength(1);
        expect(result.stderr).toMatch(new RegExp(`${variable}: must be a postgres:// URL or a SQLite file path`));
        expect(result.stderr).not.toContain('s3cret-pw');
        expect(readdirSync(dir)).toEqual([]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('a malformed URL', async () => {
      expect(await refusal('postgres://user:pa ss@[bad/textrelay')).toMatch(/the PostgreSQL URL is malformed/);
    });

    it('a server nobody answers at', async () => {
      expect(await refusal('postgres://postgres:x@127.0.0.1:1/textrelay')).toMatch(
        /cannot connect to PostgreSQL at 127\.0\.0\.1:1 .*connection refused/,
      );
    });

    it('a wrong password, without repeating it', async () => {
      const url = new URL((await database()).url);
      url.password = 'not-the-password';
      const line = await refusal(url.toString());
      expect(line).toMatch(/refused the password of user "postgres"/);
      expect(line).not.toContain('not-the-password');
    });

    it('a database written by a newer textrelay', async () => {
      const target = await database();
      await target.db.execute(sql`insert into drizzle.__drizzle_migrations (hash, created_at) values ('future', ${Date.UTC(2099, 0, 1)})`);
      expect(await refusal(target.url)).toMatch(/was written by a newer textrelay .* upgrade textrelay or use another database$/);
    });
  });
});
