import { Agent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { EXCERPT_BYTES, postWebhook } from '../../src/callbacks/post.ts';
import { type Receiver, startReceiver } from './receiver.ts';

describe('one webhook POST', () => {
  let receiver: Receiver | undefined;
  let agent: Agent | undefined;
  afterEach(async () => {
    await agent?.destroy();
    await receiver?.close();
  });

  it('sends the body and headers, and keeps the status, the start of the answer and Retry-After', async () => {
    receiver = await startReceiver((_request, _index, response) => {
      response.writeHead(503, { 'retry-after': '7' }).end('x'.repeat(EXCERPT_BYTES + 100));
    });
    agent = new Agent({ connections: 1 });
    const now = Date.now();
    const result = await postWebhook(
      agent,
      receiver.url('/hook?a=1'),
      { 'content-type': 'application/json', 'webhook-id': 'msg_1' },
      '{"n":1}',
      5_000,
      now,
    );

    expect(result).toMatchObject({ statusCode: 503, error: null, retryAfterMs: 7_000, excerpt: 'x'.repeat(EXCERPT_BYTES) });
    expect(receiver.received[0]).toMatchObject({ path: '/hook?a=1', body: '{"n":1}', headers: { 'webhook-id': 'msg_1' } });
  });

  it('times out on schedule even while the request still waits for a connection of the pool', async () => {
    receiver = await startReceiver(() => new Promise(() => {})); // never answers
    agent = new Agent({ connections: 1 });
    const url = receiver.url();
    const holding = postWebhook(agent, url, {}, '{}', 2_000, Date.now()); // takes the only connection
    const queued = postWebhook(agent, url, {}, '{}', 200, Date.now());

    // Had the deadline waited for the connection, the queued attempt would end after the holding one.
    expect(await Promise.race([holding.then(() => 'holding'), queued.then(() => 'queued')])).toBe('queued');
    expect(await queued).toMatchObject({ statusCode: null, error: 'timed out after 200 ms' });
    expect(await holding).toMatchObject({ statusCode: null, error: 'timed out after 2000 ms' });
  });

  it('reports an address nobody listens on as a failed attempt, not a thrown error', async () => {
    receiver = await startReceiver();
    const url = receiver.url();
    await receiver.close();
    receiver = undefined;
    agent = new Agent();

    const result = await postWebhook(agent, url, {}, '{}', 2_000, Date.now());
    expect(result.statusCode).toBeNull();
    expect(result.error).toMatch(/ECONNREFUSED/);
  });
});
