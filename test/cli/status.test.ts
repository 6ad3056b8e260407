import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { receiveFromTransport } from '../../src/services/receive-inbound.ts';
import { recordStatus } from '../../src/services/record-status.ts';
import { dispatcherFor, receiver, sendWithCallback } from '../callbacks/setup.ts';
import { makeTestApp } from '../helpers/app.ts';
import { ALICE, BOB, CAROL, DAVE, show, UNOWNED_LINE } from '../helpers/fixtures.ts';
import { killAll, runCli } from '../helpers/process.ts';

// `textrelay status` is a real child process reading a database file that the test fills through the app.

const dirs: string[] = [];
afterEach(killAll);
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function databaseFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'textrelay-status-'));
  dirs.push(dir);
  return join(dir, 'textrelay.db');
}

async function status(db: string, json: boolean) {
  const result = await runCli(['status', '--db', db, ...(json ? ['--json'] : [])], { LOG_LEVEL: 'warn' });
  expect(result.code, result.stderr).toBe(0);
  return result.stdout;
}

describe('textrelay status', () => {
  it('prints messages by status, the outbox and the hosts whose callbacks fail', async () => {
    const db = databaseFile();
    const t = makeTestApp({ database: db });
    // The CLI reads the real clock: the app's fake one starts now, so "the last 24 hours" includes it.
    t.clock.set(Date.now());
    const account = await t.createAccount();
    const ok = await receiver();
    const down = await receiver((_request, _index, response) => response.writeHead(503).end('maintenance'));
    const gone = await receiver((_request, _index, response) => response.writeHead(410).end());
    const delivered = await sendWithCallback(t, account, ok.url(), ALICE);
    await sendWithCallback(t, account, down.url(), BOB);
    await sendWithCallback(t, account, gone.url(), CAROL);
    await recordStatus(t.deps, { handle: delivered, status: 'DELIVERED', source: 'sandbox' });
    expect((await t.call('POST', '/sandbox/inbound', account, { number: DAVE, content: 'hi' })).status).toBe(200);
    await receiveFromTransport(t.deps, {
      from: DAVE,
      toNumber: UNOWNED_LINE,
      content: 'to nobody',
      mediaUrl: '',
      service: 'SMS',
      source: 'upstream',
    });
    // ALICE's QUEUED, SENT (implied) and DELIVERED callbacks, in order; BOB's fails and will retry; CAROL's receiver is gone for good.
    // BOB's retry is an hour away: still waiting when the CLI, on the real clock, reads the file.
    expect(await dispatcherFor(t, { retryScheduleMs: [3_600_000] }).runOnce()).toBe(5);
    t.db.$client.close();

    const report = JSON.parse(await status(db, true));
    expect(report, show(report)).toEqual({
      messages: { QUEUED: 2, SENT: 0, DELIVERED: 1, READ: 0, ERROR: 0, RECEIVED: 1 },
      outbox: { due: 0, retry_wait: 1, held: 0, delivering: 0, failed: 1, oldest_due_age_seconds: 0 },
      failing_destinations: [
        {
          host: `127.0.0.1:${down.port}`,
          retrying: 1,
          given_up: 0,
          last_failure_at: expect.any(String),
          last_status_code: 503,
          last_error: null,
        },
        {
          host: `127.0.0.1:${gone.port}`,
          retrying: 0,
          given_up: 1,
          last_failure_at: expect.any(String),
          last_status_code: 410,
          last_error: null,
        },
      ].sort((a, b) => a.host.localeCompare(b.host)),
      unrouted_inbound: {
        total: 1,
        latest: [
          {
            received_at: expect.any(String),
            from_number: DAVE,
            to_number: UNOWNED_LINE,
            group_id: null,
            content: 'to nobody',
            media_url: null,
            source: 'upstream',
          },
        ],
      },
      carriers: [],
      carrier_problems: [],
      offline_lines: [],
    });

    const human = await status(db, false);
    expect(human).toMatch(/^ {2}QUEUED +2$/m);
    expect(human).toMatch(/^ {2}DELIVERED +1$/m);
    expect(human).toContain('Webhook outbox: 1 waiting, 0 being delivered, 1 given up');
    expect(human).toMatch(new RegExp(`^  127\\.0\\.0\\.1:${down.port}\\t1 retrying, 0 given up\\tlast failure .*: HTTP 503$`, 'm'));
    expect(human).toMatch(new RegExp(`^  127\\.0\\.0\\.1:${gone.port}\\t0 retrying, 1 given up\\tlast failure .*: HTTP 410$`, 'm'));
    expect(human).not.toContain(`127.0.0.1:${ok.port}`);
    expect(human).toContain(
      'Unrouted inbound messages (no account owns the line; add it with textrelay accounts lines add): 1, the latest:',
    );
    expect(human).toMatch(new RegExp(`^  \\S+  \\${DAVE} -> \\${UNOWNED_LINE}  \\(from upstream\\)$`, 'm'));
  });

  it('on an empty database: every count at zero and no failing destination', async () => {
    const db = databaseFile();
    const report = JSON.parse(await status(db, true));
    expect(report).toEqual({
      messages: { QUEUED: 0, SENT: 0, DELIVERED: 0, READ: 0, ERROR: 0, RECEIVED: 0 },
      outbox: { due: 0, retry_wait: 0, held: 0, delivering: 0, failed: 0, oldest_due_age_seconds: 0 },
      failing_destinations: [],
      unrouted_inbound: { total: 0, latest: [] },
      carriers: [],
      carrier_problems: [],
      offline_lines: [],
    });
    const human = await status(db, false);
    expect(human).toContain('No failing webhook destinations');
    expect(human).toContain('No unrouted inbound messages.');
  });
});
