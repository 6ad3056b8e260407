import { closeSync, copyFileSync, existsSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { expectMessageError } from '../helpers/expect.ts';
import { startInProcessService } from '../helpers/in-process-service.ts';
import { type CliResult, killAll, runCli, startServer } from '../helpers/process.ts';

/**
 * A database file this build must not serve: one written by a newer textrelay, one changed by hand,
 * one with damaged pages. Each is refused at start with one line naming the file; damage that
 * appears while serving answers 503 and makes the service not ready until it is restarted.
 */

const dir = mkdtempSync(join(tmpdir(), 'textrelay-damaged-'));
afterEach(killAll);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SEND = { number: '+12125550100', content: `a message long enough to fill pages ${'.'.repeat(400)}` };
let populated: string | undefined;

/** A database with an account and 300 messages, made once and copied by each test. */
async function populatedCopy(name: string): Promise<string> {
  if (populated === undefined) {
    const file = join(dir, 'populated.db');
    const service = await startInProcessService({ TEXTRELAY_DB: file });
    for (let index = 0; index < 300; index++) expect((await service.call('POST', '/api/send-message', SEND)).status).toBe(202);
    service.db.$client.pragma('wal_checkpoint(TRUNCATE)');
    await service.stop();
    populated = file;
  }
  const copy = join(dir, name);
  copyFileSync(populated, copy);
  return copy;
}

function withClient<T>(file: string, work: (client: Database.Database) => T): T {
  const client = new Database(file);
  try {
    return work(client);
  } finally {
    client.close();
  }
}

/** Overwrites page `page` (1-based) of `file` with garbage, as a failing disk or a stray write would. */
function writeGarbage(file: string, page: number, pageSize: number): void {
  const fd = openSync(file, 'r+');
  try {
    writeSync(fd, Buffer.alloc(pageSize, 0xa5), 0, pageSize, (page - 1) * pageSize);
  } finally {
    closeSync(fd);
  }
}

/** The first page of the messages table's b-tree and the page size. */
function messagesRoot(client: Database.Database): { page: number; pageSize: number } {
  const page = client.prepare("select rootpage from sqlite_master where type = 'table' and name = 'messages'").pluck().get() as number;
  return { page, pageSize: client.pragma('page_size', { simple: true }) as number };
}

function expectOneLineRefusal(result: CliResult, file: string, words: RegExp): void {
  const dump = `exit ${result.code}\nstdout:\n${result.stdout}\nstderr:\n${result.stderr}`;
  expect(result.code, dump).toBe(1);
  const lines = result.stderr.trim().split('\n');
  expect(lines, dump).toHaveLength(1);
  expect(lines[0], dump).toMatch(new RegExp(`^textrelay: .*${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
  expect(lines[0], dump).toMatch(words);
  expect(result.stdout, dump).not.toMatch(/listening|Migrations applied|svc-api-secret-key/);
}

const ENV = { LOG_LEVEL: 'warn', PORT: '0' };

describe('a database written by a newer textrelay', () => {
  it('is refused by serve and by migrate, in one line naming the file, with exit code 1', async () => {
    const file = await populatedCopy('newer.db');
    const latestKnown = withClient(file, (client) => {
      const latest = client.prepare('select max(created_at) from __drizzle_migrations').pluck().get() as number;
      // What a later migration leaves behind: its row, made after every migration this build knows.
      client.prepare('insert into __drizzle_migrations (hash, created_at) values (?, ?)').run('a-future-migration', latest + 86_400_000);
      return latest;
    });
    expect(latestKnown).toBeGreaterThan(0);

    expectOneLineRefusal(
      await runCli(['serve'], { ...ENV, TEXTRELAY_DB: file }),
      file,
      /newer textrelay.*upgrade textrelay or use another file/,
    );
    expectOneLineRefusal(await runCli(['migrate'], { ...ENV, TEXTRELAY_DB: file }), file, /newer textrelay/);
  }, 90_000);

  it('with a column renamed is refused at start, naming the missing column, not with a stack trace', async () => {
    const file = await populatedCopy('renamed.db');
    withClient(file, (client) => client.exec('alter table messages rename column date_sent to sent_at'));
    expectOneLineRefusal(await runCli(['serve'], { ...ENV, TEXTRELAY_DB: file }), file, /messages\.date_sent/);
  }, 90_000);
});

describe('a database with damaged pages', () => {
  it('is refused at start, in one line naming the file', async () => {
    const file = await populatedCopy('damaged.db');
    const { page, pageSize } = withClient(file, messagesRoot);
    writeGarbage(file, page, pageSize);
    expectOneLineRefusal(await runCli(['serve'], { ...ENV, TEXTRELAY_DB: file }), file, /is damaged/);
  }, 90_000);

  it('whose header is garbage is refused at start as not a database', async () => {
    const file = await populatedCopy('header.db');
    writeGarbage(file, 1, 100);
    expectOneLineRefusal(await runCli(['serve'], { ...ENV, TEXTRELAY_DB: file }), file, /not a database file/);
  }, 90_000);

  it('starts when larger than TEXTRELAY_INTEGRITY_CHECK_MAX_MB, the check being skipped', async () => {
    const file = await populatedCopy('unchecked.db');
    const { page, pageSize } = withClient(file, messagesRoot);
    writeGarbage(file, page, pageSize);
    const server = await startServer([], { ...ENV, TEXTRELAY_DB: file, TEXTRELAY_INTEGRITY_CHECK_MAX_MB: '0' });
    expect(server.stdout()).toMatch(/integrity check skipped/);
    await server.stop();
  }, 90_000);

  it('found while serving answers 503 in the documented shape and keeps /readyz at 503 until restart', async () => {
    const file = join(dir, 'live.db');
    const service = await startInProcessService({ TEXTRELAY_DB: file });
    try {
      for (let index = 0; index < 300; index++) expect((await service.call('POST', '/api/send-message', SEND)).status).toBe(202);
      expect((await service.call('GET', '/readyz')).status).toBe(200);
      const client = service.db.$client;
      client.pragma('wal_checkpoint(TRUNCATE)');
      const { page, pageSize } = messagesRoot(client);
      writeGarbage(file, page, pageSize);
      // The connection's page cache still holds the good page: make it read the file again.
      client.pragma('shrink_memory');

      expectMessageError(await service.call('GET', '/accounts/messages'), 503, 5003, { nonEmpty: true });
      expectMessageError(await service.call('POST', '/api/send-message', SEND), 503, 5003, { nonEmpty: true });
      const ready = await service.call('GET', '/readyz');
      expect(ready.status).toBe(503);
      // Writes that miss the damaged pages still commit: readiness must not come back with them.
      expect((await service.call('GET', '/readyz')).status).toBe(503);
      expect((await service.call('GET', '/healthz')).status).toBe(200);
    } finally {
      await service.stop();
    }
    expect(existsSync(file)).toBe(true);
  }, 90_000);
});
