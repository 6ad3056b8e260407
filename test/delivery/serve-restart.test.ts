import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type Answer, answerOk, startReceiver } from '../callbacks/receiver.ts';
import { show } from '../helpers/fixtures.ts';
import { api, createAccount, eventually } from '../helpers/live.ts';
import { killAll, startServer } from '../helpers/process.ts';

/**
 * The whole pipeline in a real `textrelay serve` process, killed with SIGKILL while its client's
 * receiver is down: after a restart on the same file, every status of every message still reaches
 * the receiver once it is back, in order, each under the one webhook-id it always had.
 */

const SLOW = 120_000;
const down: Answer = (_request, _index, response) => {
  response.writeHead(503).end('down for maintenance');
};

describe('serve: callbacks survive a crash while the receiver is down', () => {
  const dir = mkdtempSync(join(tmpdir(), 'textrelay-restart-'));
  const db = join(dir, 'textrelay.db');
  afterAll(async () => {
    await killAll();
    rmSync(dir, { recursive: true, force: true });
  });

  it(
    'delivers every status once the receiver is back, after kill -9 and a restart',
    async () => {
      const receiver = await startReceiver(down);
      const account = await createAccount(db, 'ops@example.com');
      const env = {
        PORT: '0',
        TEXTRELAY_DB: db,
        TEXTRELAY_SANDBOX_STEP_MS: '50',
        // Retries every ~0.3 s for long enough that nothing is given up during the test.
        TEXTRELAY_WEBHOOK_RETRY_SCHEDULE: Array.from({ length: 200 }, () => '0.3').join(','),
        LOG_LEVEL: 'silent',
      };
      let server = await startServer([], env, SLOW);
      const numbers = ['+14155550100', '+14155550105', '+14155550103'];
      const handles: string[] = [];
      for (const number of numbers) {
        const sent = await api(server, account, 'POST', '/api/send-message', {
          number,
          content: 'hi',
          status_callback: receiver.url('/status'),
        });
        expect(sent.status, show(sent.body)).toBe(202);
        handles.push(sent.body.message_handle);
      }
      // Every timeline done and callbacks already refused at least once: the outbox holds them all.
      await eventually('the timelines to finish', async () => {
        const statuses = await Promise.all(
          handles.map(async (handle) => (await api(server, account, 'GET', `/api/status?handle=${handle}`)).body.status),
        );
        return statuses.join() === 'READ,READ,ERROR' ? true : undefined;
      });
      await eventually('refused attempts', async () => (receiver.received.length >= handles.length ? true : undefined));
      await server.stop('SIGKILL');

      receiver.setAnswer(answerOk);
      const refusedBefore = receiver.received.length;
      server = await startServer([], env, SLOW);
      const expected = {
        [handles[0]!]: ['QUEUED', 'SENT', 'DELIVERED', 'READ'],
        [handles[1]!]: ['QUEUED', 'SENT', 'DELIVERED', 'READ'],
        [handles[2]!]: ['QUEUED', 'ERROR'],
      };
      const accepted = () => receiver.received.slice(refusedBefore);
      await eventually(
        'every callback after the restart',
        async () => (accepted().length >= Object.values(expected).flat().length ? true : undefined),
        SLOW - 30_000,
      );
      await server.stop('SIGTERM');

      for (const handle of handles) {
        const delivered = accepted().filter((request) => request.json?.message_handle === handle);
        expect(
          delivered.map((request) => request.json.status),
          show(delivered.map((r) => r.json)),
        ).toEqual(expected[handle]);
        const ids = delivered.map((request) => request.headers['webhook-id']);
        expect(new Set(ids).size, 'one webhook-id per status').toBe(ids.length);
        // Attempts refused before the crash carried the same ids: the receiver can dedupe on them.
        for (const refused of receiver.received.slice(0, refusedBefore).filter((request) => request.json?.message_handle === handle)) {
          expect(ids).toContain(refused.headers['webhook-id']);
        }
      }
      await receiver.close();
    },
    SLOW * 2,
  );
});
