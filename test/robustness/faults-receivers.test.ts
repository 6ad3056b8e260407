import { mkdtempSync, rmSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Answer, answerOk } from '../callbacks/receiver.ts';
import { appWithAccount, dispatcherFor, onCleanup, receiver, sendWithCallback } from '../callbacks/setup.ts';
import type { TestAccount, TestApp } from '../helpers/app.ts';
import { expectCallbacksOnce } from '../helpers/callbacks.ts';
import { show } from '../helpers/fixtures.ts';
import { startInProcessService } from '../helpers/in-process-service.ts';
import { eventually } from '../helpers/live.ts';

/**
 * Callback receivers that misbehave the ways real ones do: hang, drop the connection, fail then
 * recover, answer forever. The dispatcher records each attempt, retries under the same
 * webhook-id, and keeps delivering to everyone else meanwhile. (Single refusals, 3xx, 410,
 * Retry-After and the 2 KiB excerpt of a short answer are in test/callbacks/dispatcher.test.ts.)
 */

async function deliveries(t: TestApp, account: TestAccount): Promise<any[]> {
  const reply = await t.call('GET', '/accounts/webhooks/deliveries?limit=200', account);
  expect(reply.status, show(reply.body)).toBe(200);
  return reply.body.deliveries;
}

/** Ten distinct valid numbers for one receiver's messages. */
const numbers = (base: number) => Array.from({ length: 10 }, (_, i) => `+1212456${String(base + i)}`);

describe('receiver faults', () => {
  it.each<[string, Answer]>([
    ['never answers', () => new Promise(() => {})],
    [
      'sends its headers, then nothing',
      (_request, _index, response) => void response.writeHead(200, { 'content-type': 'text/plain' }).write('partial'),
    ],
  ])('a host that %s times out and is retried, while every other host is served', async (_name, hang) => {
    const { t, account } = await appWithAccount();
    const hung = await receiver(hang);
    const healthy = await receiver();
    const hungHandles: string[] = [];
    for (const number of numbers(7100).slice(0, 4)) hungHandles.push(await sendWithCallback(t, account, hung.url(), number));
    const healthyHandles: string[] = [];
    for (const number of numbers(7200)) healthyHandles.push(await sendWithCallback(t, account, healthy.url(), number));
    const dispatcher = dispatcherFor(t, { timeoutMs: 300, concurrency: 4, perHostConcurrency: 2 });
    dispatcher.start();

    await eventually('every callback to the healthy host', async () =>
      healthy.received.length === healthyHandles.length ? true : undefined,
    );
    await eventually('the hung attempts to time out', async () => {
      const hungRows = (await deliveries(t, account)).filter((row) => hungHandles.includes(row.message_handle));
      return hungRows.every((row) => row.state === 'pending' && row.attempts.length === 1) ? hungRows : undefined;
    });
    for (const row of (await deliveries(t, account)).filter((r) => hungHandles.includes(r.message_handle))) {
      expect(row.attempts[0], show(row)).toMatchObject({ status_code: null, error: 'timed out after 300 ms' });
    }

    hung.setAnswer(answerOk);
    t.clock.advance(5_000); // the first pause of the test schedule
    dispatcher.wake();
    await eventually('the retries', async () => {
      const rows = await deliveries(t, account);
      return rows.every((row) => row.state === 'delivered') ? true : undefined;
    });
    expectCallbacksOnce(hung, hungHandles, ['QUEUED']);
    expectCallbacksOnce(healthy, healthyHandles, ['QUEUED']);
  });

  it('a receiver that resets the connection is a failed attempt, retried under the same webhook-id', async () => {
    const { t, account } = await appWithAccount();
    const hook = await receiver((_request, index, response) => {
      if (index === 0) response.socket?.destroy();
      else answerOk(_request, index, response);
    });
    const handle = await sendWithCallback(t, account, hook.url());
    const dispatcher = dispatcherFor(t);
    expect(await dispatcher.runOnce()).toBe(1);
    const [failed] = await deliveries(t, account);
    expect(failed, show(failed)).toMatchObject({ state: 'pending', attempt_count: 1, last_status_code: null });
    expect(failed.attempts[0].error, show(failed)).toMatch(/socket|closed|reset|ECONNRESET/i);

    t.clock.advance(5_000);
    expect(await dispatcher.runOnce()).toBe(1);
    const [delivered] = await deliveries(t, account);
    expect(delivered).toMatchObject({ state: 'delivered', attempt_count: 2 });
    expect(hook.received.map((request) => request.headers['webhook-id'])).toEqual([delivered.id, delivered.id]);
    expectCallbacksOnce(hook, [handle], ['QUEUED']);
  });

  it('an endless answer, trickled slowly, is cut off: the attempt keeps its first 2 KiB and nothing more is read', async () => {
    const { t, account } = await appWithAccount();
    const OFFERED = 256 * 1024 * 1024;
    let written = 0;
    let closed: Promise<void> = Promise.resolve();
    const hook = await receiver((_request, _index, response: ServerResponse) => {
      response.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(16 * 1024, 'x');
      closed = new Promise((resolve) => response.once('close', resolve));
      const trickle = setInterval(() => {
        if (response.destroyed || written >= OFFERED) return clearInterval(trickle);
        response.write(chunk);
        written += chunk.length;
      }, 5);
      response.once('close', () => clearInterval(trickle));
    });
    await sendWithCallback(t, account, hook.url());
    expect(await dispatcherFor(t).runOnce()).toBe(1);
    await closed;

    const [delivery] = await deliveries(t, account);
    expect(delivery, show({ ...delivery, attempts: undefined })).toMatchObject({
      state: 'delivered',
      attempt_count: 1,
      last_status_code: 200,
    });
    expect(delivery.attempts[0].response_excerpt).toBe('x'.repeat(2048));
    // The dispatcher hung up after a few chunks instead of reading (or buffering) the endless answer.
    expect(written).toBeLessThan(4 * 1024 * 1024);
  });

  it('a receiver that answers 500 to every first attempt still gets each status once and in order', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'textrelay-faults-'));
    onCleanup(() => rmSync(dir, { recursive: true, force: true }));
    const seen = new Set<string>();
    const hook = await receiver((request, _index, response) => {
      const id = String(request.headers['webhook-id']);
      if (seen.has(id)) return answerOk(request, _index, response);
      seen.add(id);
      response.writeHead(500).end('try again');
    });
    const service = await startInProcessService({
      TEXTRELAY_DB: join(dir, 'textrelay.db'),
      TEXTRELAY_SANDBOX_STEP_MS: '20',
      TEXTRELAY_WEBHOOK_RETRY_SCHEDULE: Array.from({ length: 20 }, () => '0.05').join(','),
    });
    onCleanup(() => service.stop());
    const handles: string[] = [];
    for (const number of ['+14155550100', '+12125550100', '+13055550105']) {
      const sent = await service.call('POST', '/api/send-message', { number, content: 'hi', status_callback: hook.url() });
      expect(sent.status, show(sent.body)).toBe(202);
      handles.push(sent.body.message_handle);
    }
    const statuses = ['QUEUED', 'SENT', 'DELIVERED', 'READ'];
    await eventually('every status delivered', async () =>
      hook.received.length >= handles.length * statuses.length * 2 ? true : undefined,
    );
    expectCallbacksOnce(hook, handles, statuses);
    for (const request of hook.received) {
      const attempts = hook.received.filter((other) => other.headers['webhook-id'] === request.headers['webhook-id']);
      expect(attempts, 'a 500, then the 200').toHaveLength(2);
    }
  });
});
