import SendblueAPI from 'sendblue';
import { afterEach, describe, expect, it } from 'vitest';
import { serveOnLoopback } from '../../helpers/listen.ts';
import { servedThroughProxy } from '../../helpers/postgres-outage.ts';

/**
 * GET /api/v2/events while PostgreSQL stops, read with the official SDK's `for await`: a short
 * outage passes under an open stream; a long one ends it with an `error` event saying where to
 * resume, never with a silent end.
 */

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function streamThroughProxy(outageGraceMs: number) {
  const world = await servedThroughProxy(cleanups, { eventStreams: { pollMs: 100, heartbeatMs: 500, outageGraceMs } });
  const server = await serveOnLoopback(world.app.fetch);
  cleanups.push(server.close);
  const client = new SendblueAPI({ apiKey: world.account.api_key_id, apiSecret: world.account.api_secret_key, baseURL: server.url });
  const stream = await client.events.stream({ types: 'message.created' });
  const iterator = stream[Symbol.asyncIterator]();
  /** The next thing the SDK's loop gets: an event, or `done` when the stream ended. */
  const next = async () => {
    const step = await iterator.next();
    return step.done ? 'done' : (step.value as unknown as Record<string, unknown>);
  };
  cleanups.push(() => stream.controller.abort());
  return { ...world, next };
}

describe('the events stream in a PostgreSQL outage', () => {
  it('stays open through a short outage and goes on with the events after it', async () => {
    const { proxy, send, next } = await streamThroughProxy(30_000);
    expect((await send()).status).toBe(202);
    expect(await next()).toMatchObject({ type: 'message.created' });

    await proxy.stop();
    await pause(2_500);
    await proxy.start();
    let sent = await send();
    for (let tries = 0; sent.status !== 202 && tries < 50; tries++) {
      await pause(200);
      sent = await send();
    }
    expect(sent.status).toBe(202);
    expect(await next()).toMatchObject({ type: 'message.created', data: { message_handle: sent.body.message_handle } });
  });

  it('ends a long outage with an error event naming the id to resume after', async () => {
    const { proxy, send, next } = await streamThroughProxy(1_000);
    expect((await send()).status).toBe(202);
    const first = await next();
    expect(first).toMatchObject({ type: 'message.created' });

    await proxy.stop();
    expect(await next()).toMatchObject({ type: 'error', error_code: 5003, last_event_id: (first as { id: string }).id });
    expect(await next()).toBe('done');
  });
});
