import { Readable } from 'node:stream';
import { request } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestAccount, type TestApp } from '../helpers/app.ts';
import { ALICE } from '../helpers/fixtures.ts';
import { type Listening, serveOnLoopback } from '../helpers/listen.ts';

// The size cap over a real socket, through @hono/node-server: in-process requests (app.request)
// never carry the framing headers the cap reads, so robustness.test.ts alone cannot see this path.

let t: TestApp;
let account: TestAccount;
let server: Listening;

beforeEach(async () => {
  t = makeTestApp();
  account = await t.createAccount();
  server = await serveOnLoopback(t.app.fetch);
});

afterEach(() => server.close());

const OVER_LIMIT = JSON.stringify({ number: ALICE, content: 'x'.repeat(1024 * 1024 + 10) });

function messageCount(): number {
  return (t.db.$client.prepare('select count(*) as n from messages').get() as { n: number }).n;
}

async function post(body: string | Readable, headers: Record<string, string> = {}) {
  const answer = await request(`${server.url}/api/send-message`, {
    method: 'POST',
    headers: { ...account.headers, 'content-type': 'application/json', ...headers },
    body,
  });
  return { status: answer.statusCode, body: (await answer.body.json()) as Record<string, unknown> };
}

describe('request body cap over HTTP', () => {
  it('refuses a declared length over 1 MiB with 413 in the error shape, writing nothing', async () => {
    const answer = await post(OVER_LIMIT);
    expect(answer.status).toBe(413);
    expect(answer.body).toMatchObject({ status: 'ERROR', error_code: 4000 });
    expect(messageCount()).toBe(0);
  });

  it('counts a chunked body as it streams and refuses it past 1 MiB', async () => {
    async function* chunks() {
      for (let sent = 0; sent < OVER_LIMIT.length; sent += 64 * 1024) yield Buffer.from(OVER_LIMIT.slice(sent, sent + 64 * 1024));
    }
    const answer = await post(Readable.from(chunks()));
    expect(answer.status).toBe(413);
    expect(messageCount()).toBe(0);
  });

  it('reads a body within the cap, declared or chunked', async () => {
    const body = JSON.stringify({ number: ALICE, content: 'hello over the wire' });
    expect((await post(body)).status).toBe(202);
    async function* oneChunk() {
      yield Buffer.from(body);
    }
    expect((await post(Readable.from(oneChunk()))).status).toBe(202);
    expect(messageCount()).toBe(2);
  });
});
