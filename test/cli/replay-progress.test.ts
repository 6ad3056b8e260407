import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { closeDatabase } from '../../src/db/sqlite/connection.ts';
import { recordAttempts } from '../../src/services/callback-dispatch.ts';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { claimDue, finishedAs } from '../helpers/outbox.ts';
import { childEnv, killAll, REPO_ROOT, runCli } from '../helpers/process.ts';

// `textrelay webhooks replay --failed-since` over more deliveries than one batch, as a child process:
// a summary on stderr always, and a progress line only when stderr is a terminal.

const GIVEN_UP = 1_234;
const FAILED_AT = Date.UTC(2026, 10, 23, 9, 0, 0);
const SLOW = 120_000;

const folders: string[] = [];
afterEach(killAll);
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

/** Gives up, at `at`, every delivery due then, as the dispatcher does after a 410. */
async function giveUpAll(t: TestApp, at: number): Promise<void> {
  const answer = { attemptedAt: at, durationMs: 3, statusCode: 410 };
  const deps = { ...t.deps, clock: { now: () => at } };
  await recordAttempts(
    deps,
    (await claimDue(deps, GIVEN_UP * 2)).map((row) => finishedAs(row, { kind: 'failed' }, answer)),
  );
}

/** A database file holding GIVEN_UP given-up deliveries, each of its own message. */
async function databaseWithManyFailures(): Promise<{ file: string; t: TestApp }> {
  const folder = mkdtempSync(join(tmpdir(), 'textrelay-replay-'));
  folders.push(folder);
  const file = join(folder, 'textrelay.db');
  const t = makeTestApp({ database: file });
  const accountId = (await t.store.accounts.findByKeyId((await t.createAccount()).api_key_id))!.id;
  await t.store.transaction(async (tx) => {
    for (let i = 0; i < GIVEN_UP; i += 1) {
      const entry = { webhookId: `msg_replay_${i}`, accountId, messageHandle: `handle-${i}`, eventType: 'message.status' as const };
      await tx.outbox.enqueue({ ...entry, url: 'http://127.0.0.1:9/gone', payload: '{}' }, FAILED_AT - 1_000);
    }
  });
  await giveUpAll(t, FAILED_AT);
  expect((await t.store.outbox.countByState()).failed).toBe(GIVEN_UP);
  return { file, t };
}

describe('textrelay webhooks replay --failed-since, many deliveries', () => {
  it(
    'piped: no progress line, a summary on stderr, every id on stdout; on a terminal: progress by batch, then the summary',
    async () => {
      const { file, t } = await databaseWithManyFailures();
      const env = { TEXTRELAY_DB: file, LOG_LEVEL: 'warn' };

      const piped = await runCli(['webhooks', 'replay', '--failed-since', '2026-11-23T08:00:00Z', '--json'], env);
      expect(piped.code, piped.stderr).toBe(0);
      expect(JSON.parse(piped.stdout).replayed).toHaveLength(GIVEN_UP);
      expect(piped.stderr).toBe(`Replayed ${GIVEN_UP} deliveries given up since 2026-11-23T08:00:00.000Z.\n`);
      expect(await t.store.outbox.countByState()).toMatchObject({ failed: 0, pending: GIVEN_UP });

      // Given up again (the replay made them due at the CLI's real time), then replayed with stderr on
      // a pseudo-terminal (`script` runs the command in one).
      await giveUpAll(t, Date.now());
      closeDatabase(t.db);
      const command = `${process.execPath} bin/textrelay.js webhooks replay --failed-since 2026-11-23T08:00:00Z --json > /dev/null`;
      const terminal = execFileSync('script', ['-qec', command, '/dev/null'], {
        cwd: REPO_ROOT,
        env: childEnv(env),
        encoding: 'utf8',
        timeout: 60_000,
      });
      const progress = [...terminal.matchAll(/Replaying failed deliveries: (\d+)\/(\d+) \((\d+)%\)/g)].map((match) =>
        match.slice(1).map(Number),
      );
      expect(progress, terminal).toEqual([
        [500, GIVEN_UP, 40],
        [1_000, GIVEN_UP, 81],
        [GIVEN_UP, GIVEN_UP, 100],
      ]);
      // The summary comes after the progress line is cleared.
      expect(terminal).toContain(`\r\x1b[KReplayed ${GIVEN_UP} deliveries given up since 2026-11-23T08:00:00.000Z.`);
    },
    SLOW,
  );
});
