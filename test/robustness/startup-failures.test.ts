import { existsSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type CliResult, killAll, runCli } from '../helpers/process.ts';

/**
 * `textrelay serve` that cannot start says why in one line naming what and where, exits with code
 * 1, and leaves nothing behind: no database file, no development account's secret printed.
 */

const dir = mkdtempSync(join(tmpdir(), 'textrelay-startup-'));
const listeners: Server[] = [];
afterEach(killAll);
afterAll(async () => {
  for (const listener of listeners) await new Promise((resolve) => listener.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

function expectOneLine(result: CliResult, line: RegExp): void {
  const dump = `exit ${result.code}\nstdout:\n${result.stdout}\nstderr:\n${result.stderr}`;
  expect(result.code, dump).toBe(1);
  expect(result.stderr.trim().split('\n'), dump).toHaveLength(1);
  expect(result.stderr.trim(), dump).toMatch(line);
  expect(result.stdout, dump).not.toMatch(/svc-api-secret-key|listening/);
}

async function takenPort(): Promise<number> {
  const listener = createServer();
  listeners.push(listener);
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  return (listener.address() as { port: number }).port;
}

const ENV = { LOG_LEVEL: 'warn' };

describe('serve that cannot start', () => {
  it('on a port in use: one line naming the address, and the database is not created', async () => {
    const port = await takenPort();
    const file = join(dir, 'port-in-use', 'textrelay.db');
    const result = await runCli(['serve', '--port', String(port)], { ...ENV, TEXTRELAY_DB: file });
    expectOneLine(result, new RegExp(`^textrelay: cannot listen on 127\\.0\\.0\\.1:${port}: address already in use$`));
    expect(existsSync(file)).toBe(false);
    expect(existsSync(join(dir, 'port-in-use'))).toBe(false);
  }, 60_000);

  it('on a host that does not resolve: one line naming it', async () => {
    const file = join(dir, 'bad-host.db');
    const result = await runCli(['serve', '--port', '0', '--host', 'no-such-host.invalid'], { ...ENV, TEXTRELAY_DB: file });
    expectOneLine(result, /^textrelay: cannot listen on no-such-host\.invalid:0: no such host$/);
    expect(existsSync(file)).toBe(false);
  }, 60_000);

  it('on an address this machine does not have: one line naming it', async () => {
    const result = await runCli(['serve', '--port', '0', '--host', '192.0.2.1'], { ...ENV, TEXTRELAY_DB: join(dir, 'foreign-address.db') });
    expectOneLine(result, /^textrelay: cannot listen on 192\.0\.2\.1:0: this machine has no such address$/);
  }, 60_000);

  it('on a database path that cannot be opened: one line naming the file', async () => {
    // A folder where the file should be: SQLite's SQLITE_CANTOPEN.
    const folder = join(dir, 'a-folder.db');
    rmSync(folder, { recursive: true, force: true });
    await runCli(['migrate'], { ...ENV, TEXTRELAY_DB: join(folder, 'inner.db') });
    const result = await runCli(['serve', '--port', '0'], { ...ENV, TEXTRELAY_DB: folder });
    expectOneLine(result, new RegExp(`^textrelay: cannot open database ${folder.replace(/[.]/g, '\\.')}: `));
  }, 60_000);

  it('under a file instead of a folder: one line naming the file', async () => {
    const plain = join(dir, 'plain-file');
    writeFileSync(plain, 'not a folder');
    const file = join(plain, 'textrelay.db');
    const result = await runCli(['serve', '--port', '0'], { ...ENV, TEXTRELAY_DB: file });
    expectOneLine(
      result,
      /^textrelay: cannot open database .*plain-file\/textrelay\.db: a part of its folder path is a file, not a folder$/,
    );
  }, 60_000);

  it('in a folder that is a dangling symbolic link: one line naming the file', async () => {
    const link = join(dir, 'dangling');
    symlinkSync(join(dir, 'gone', 'data'), link);
    const file = join(link, 'textrelay.db');
    const result = await runCli(['serve', '--port', '0'], { ...ENV, TEXTRELAY_DB: file });
    expectOneLine(result, /^textrelay: cannot open database .*dangling\/textrelay\.db: its folder does not exist/);
  }, 60_000);
});
