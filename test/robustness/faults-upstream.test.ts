import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createCourier } from '../../src/transports/courier.ts';
import { createUpstreamTransport } from '../../src/transports/upstream.ts';
import { makeTestApp } from '../helpers/app.ts';
import { send } from '../helpers/delivery.ts';
import { LOOPBACK_ALLOWED, show } from '../helpers/fixtures.ts';
import { api, createAccount, eventually, freePort } from '../helpers/live.ts';
import { callbackStatuses } from '../helpers/outbox.ts';
import { killAll, startServer } from '../helpers/process.ts';

/**
 * The provider behind the relay transport is down (nothing listens on its port). A message
 * accepted meanwhile stays QUEUED and waiting, across a crash too, and is handed over once the
 * provider is back; if it never comes back, the retries run out and the message fails with 10001.
 * (Refusals, 5xx answers and timeouts of a provider that does answer: test/delivery/upstream.test.ts.)
 */

const INGEST_SECRET = 'ingest-secret-of-the-upstream-faults';
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await killAll();
});

type Relayed = { idempotencyKey: string | undefined; body: any };

/** A provider on a given port: accepts every send (its handle is `up-` + our Idempotency-Key) and the relay's webhook registrations. */
async function providerOn(port: number): Promise<{ sends: Relayed[]; server: Server }> {
  const sends: Relayed[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const json = (body: unknown, status = 200) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (req.url === '/accounts/webhooks') return json({ status: 'OK', webhooks: { receive: [] }, secret: 'whsec_cHJvdmlkZXIgc2VjcmV0' });
      if (req.url === '/api/account/webhooks') return json({ status: 'OK', message: 'Webhooks added', webhooks: {} });
      const key = req.headers['idempotency-key'] as string | undefined;
      sends.push({ idempotencyKey: key, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
      json({ status: 'QUEUED', message_handle: `up-${key}`, group_id: '' }, 202);
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  cleanups.push(() => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(() => resolve()));
  });
  return { sends, server };
}

describe('upstream down', () => {
  it('a message accepted while the provider is down survives a crash and is handed over, once, when it is back', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'textrelay-upstream-down-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const db = join(dir, 'textrelay.db');
    const providerPort = await freePort();
    const account = await createAccount(db, 'relay@example.com');
    const env = {
      PORT: '0',
      TEXTRELAY_DB: db,
      TEXTRELAY_TRANSPORT: 'upstream',
      TEXTRELAY_UPSTREAM_URL: `http://127.0.0.1:${providerPort}`,
      TEXTRELAY_UPSTREAM_KEY_ID: 'key-of-the-relay',
      TEXTRELAY_UPSTREAM_SECRET: 'secret-of-the-relay',
      TEXTRELAY_PUBLIC_URL: 'https://relay.example.com',
      // The provider stands on loopback, which upstream mode refuses by default.
      TEXTRELAY_ALLOW_PRIVATE_CALLBACKS: 'true',
      TEXTRELAY_INGEST_SECRET: INGEST_SECRET,
      LOG_LEVEL: 'silent',
    };

    let server = await startServer([], env);
    const sent = await api(server, account, 'POST', '/api/send-message', { number: '+14155550100', content: 'while the provider is down' });
    expect(sent.status, show(sent.body)).toBe(202);
    const handle: string = sent.body.message_handle;
    // The first hand-over is refused at once (nothing listens); the next waits for the courier's pause.
    expect((await api(server, account, 'GET', `/api/status?handle=${handle}`)).body.status).toBe('QUEUED');
    await server.stop('SIGKILL');

    const provider = await providerOn(providerPort);
    server = await startServer([], env);
    await eventually('the hand-over after the restart', async () => (provider.sends.length > 0 ? true : undefined));
    expect(provider.sends.map((relayed) => relayed.idempotencyKey)).toEqual([handle]);
    expect(provider.sends[0]!.body).toMatchObject({ number: '+14155550100', content: 'while the provider is down' });

    // The provider reports under its own handle: the relay stored it at the hand-over.
    const reported = await fetch(`${server.url}/webhooks/status`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'svc-signing-secret': INGEST_SECRET },
      body: JSON.stringify({ message_handle: `up-${handle}`, status: 'DELIVERED' }),
    });
    expect(reported.status).toBe(200);
    expect((await api(server, account, 'GET', `/api/status?handle=${handle}`)).body.status).toBe('DELIVERED');
    await server.stop('SIGTERM');
  });

  it('fails the message with 10001, and tells the client, once every retry found the provider down', async () => {
    const t = makeTestApp({ transportName: 'upstream' });
    const account = await t.createAccount();
    const transport = createUpstreamTransport(t.deps, {
      url: `http://127.0.0.1:${await freePort()}`,
      keyId: 'key-of-the-relay',
      secret: 'secret-of-the-relay',
      publicUrl: 'https://relay.example.com',
      onWebhookSecret: () => {},
      registrationRetryDelaysMs: [1],
      outboundPolicy: LOOPBACK_ALLOWED,
    });
    const courier = createCourier(t.deps, transport, { retryDelaysMs: [1, 1], concurrency: 1 });
    cleanups.push(() => courier.stop());
    const handle = (await send(t, account)).message_handle;

    courier.enqueue(handle);
    await eventually('the message to fail', async () =>
      (await t.store.messages.findByAnyHandle(handle))?.status === 'ERROR' ? true : undefined,
    );

    expect(await t.store.messages.findByAnyHandle(handle)).toMatchObject({ status: 'ERROR', errorCode: 10001, transportHandle: null });
    expect(await callbackStatuses(t, handle)).toEqual(['QUEUED', 'ERROR']);
  });
});
