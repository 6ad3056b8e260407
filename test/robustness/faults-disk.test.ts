import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startReceiver } from '../callbacks/receiver.ts';
import { expectCallbacksOnce } from '../helpers/callbacks.ts';
import { expectMessageError } from '../helpers/expect.ts';
import { show } from '../helpers/fixtures.ts';
import { api, createAccount, eventually } from '../helpers/live.ts';
import { killAll, startServer } from '../helpers/process.ts';

/**
 * A really full disk: `textrelay serve` with its database on a small tmpfs, which a filler file
 * then fills. Mounting needs root and a kernel that lets this container mount; where it cannot,
 * this test is skipped and faults-storage.test.ts (SQLite refusing to grow the file) stands in.
 */

const dir = mkdtempSync(join(tmpdir(), 'textrelay-disk-'));
const canMount = (() => {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=16m', 'tmpfs', dir], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/** Writes `file` until the disk refuses another byte. */
function fillDisk(file: string): void {
  const fd = openSync(file, 'w');
  const chunk = Buffer.alloc(64 * 1024);
  try {
    for (let size = chunk.length; size > 0; ) {
      try {
        writeSync(fd, chunk, 0, size);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
        size = Math.floor(size / 2);
      }
    }
  } finally {
    closeSync(fd);
  }
}

describe('a full disk under a real serve process', () => {
  afterAll(async () => {
    await killAll();
    if (canMount) execFileSync('umount', ['-l', dir], { stdio: 'ignore' });
    rmSync(dir, { recursive: true, force: true });
  });

  it.skipIf(!canMount)(
    'answers 503 while the disk is full, is not ready, and delivers everything it acknowledged once space is freed',
    async () => {
      const db = join(dir, 'textrelay.db');
      const filler = join(dir, 'filler');
      const receiver = await startReceiver();
      const account = await createAccount(db, 'disk@example.com');
      const server = await startServer([], {
        PORT: '0',
        TEXTRELAY_DB: db,
        TEXTRELAY_SANDBOX_STEP_MS: '20',
        TEXTRELAY_RATE_LIMIT_PER_MINUTE: '0',
        TEXTRELAY_WEBHOOK_RETRY_SCHEDULE: Array.from({ length: 100 }, () => '0.2').join(','),
        LOG_LEVEL: 'silent',
      });
      const acknowledged: string[] = [];
      const send = async (index: number) => {
        const reply = await api(server, account, 'POST', '/api/send-message', {
          number: '+14155550100',
          content: `message ${index} ${'.'.repeat(2_000)}`,
          status_callback: receiver.url('/status'),
        });
        if (reply.status === 202) acknowledged.push(reply.body.message_handle);
        return reply;
      };
      for (let index = 0; index < 3; index++) expect((await send(index)).status).toBe(202);

      fillDisk(filler);
      // The write-ahead log may still have room it reuses: write until the disk refuses.
      let refused = await send(3);
      for (let index = 4; refused.status === 202 && index < 10_000; index++) refused = await send(index);
      expectMessageError(refused, 503, 5003, { nonEmpty: true });
      const ready = await api(server, account, 'GET', '/readyz');
      expect(ready.status, show(ready.body)).toBe(503);
      expect((await api(server, account, 'GET', '/healthz')).status).toBe(200);

      unlinkSync(filler);
      await eventually('ready again', async () => ((await api(server, account, 'GET', '/readyz')).status === 200 ? true : undefined));
      expect((await send(10_001)).status).toBe(202);
      await eventually('every acknowledged message read and its callbacks delivered', async () => {
        const delivered = new Set(receiver.received.map((request) => `${request.json.message_handle} ${request.json.status}`));
        return acknowledged.every((handle) => delivered.has(`${handle} READ`)) ? true : undefined;
      });
      expectCallbacksOnce(receiver, acknowledged, ['QUEUED', 'SENT', 'DELIVERED', 'READ']);
      const stopped = await server.stop('SIGTERM');
      expect(stopped.code).toBe(0);
      await receiver.close();
    },
    120_000,
  );
});
