import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCourier } from '../../src/transports/courier.ts';
import { createUpstreamTransport } from '../../src/transports/upstream.ts';
import { type Receiver, startReceiver } from '../callbacks/receiver.ts';
import { makeTestApp } from '../helpers/app.ts';
import { send } from '../helpers/delivery.ts';
import { LOOPBACK_ALLOWED, show } from '../helpers/fixtures.ts';
import { api, type Credentials, createAccount, eventually, startServerOnFreePort } from '../helpers/live.ts';
import { killAll, type RunningServer, runCli, startServer } from '../helpers/process.ts';

/**
 * Two textrelay processes over loopback HTTP: A relays through its upstream transport to B, which
 * runs the sandbox network; B calls A's /webhooks/* back (status callbacks, echoes), and A calls
 * its own client. What A's client sees must be what a client of a sandbox textrelay sees.
 */

// Starting a child costs seconds of CPU on a loaded box (tsx compiles the sources).
const SLOW = 120_000;
const STEP_MS = 100;

describe('relay: textrelay A (upstream transport) through textrelay B (sandbox)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'textrelay-relay-'));
  const dbA = join(dir, 'a.db');
  const dbB = join(dir, 'b.db');
  let portB: number;
  let a: RunningServer;
  let b: RunningServer;
  let accountA: Credentials;
  let accountB: Credentials;
  let client: Receiver;

  // B starts where the kernel puts it; its restart takes the same port, which A knows it by.
  const envB = (port: number) => ({
    PORT: String(port),
    TEXTRELAY_DB: dbB,
    TEXTRELAY_SANDBOX_STEP_MS: String(STEP_MS),
    // A refuses B's callbacks until it has registered; B retries them quickly.
    TEXTRELAY_WEBHOOK_RETRY_SCHEDULE: '0.2,0.5,1,2,5',
    LOG_LEVEL: 'warn',
  });

  beforeAll(async () => {
    client = await startReceiver();
    accountB = await createAccount(dbB, 'relay@b.example.com');
    // A's account owns B's real lines: replies come back addressed to them.
    const created = await runCli(
      [
        'accounts',
        'create',
        '--email',
        'client@a.example.com',
        '--plan',
        'sapphire',
        '--numbers',
        accountB.numbers.join(','),
        '--json',
        '--db',
        dbA,
      ],
      {
        LOG_LEVEL: 'silent',
      },
    );
    expect(created.code, created.stderr).toBe(0);
    accountA = JSON.parse(created.stdout) as Credentials;
    b = await startServer([], envB(0), SLOW);
    portB = b.port;
    a = await startServerOnFreePort(
      (portA) => ({
        TEXTRELAY_DB: dbA,
        TEXTRELAY_TRANSPORT: 'upstream',
        TEXTRELAY_UPSTREAM_URL: b.url,
        TEXTRELAY_UPSTREAM_KEY_ID: accountB.api_key_id,
        TEXTRELAY_UPSTREAM_SECRET: accountB.api_secret_key,
        TEXTRELAY_PUBLIC_URL: `http://127.0.0.1:${portA}`,
        // B and the client's receiver are on loopback, which upstream mode refuses by default.
        TEXTRELAY_ALLOW_PRIVATE_CALLBACKS: 'true',
        LOG_LEVEL: 'info',
      }),
      SLOW,
    );
    await a.waitForLine(/receive webhook registered upstream/, SLOW);
  }, SLOW * 2);

  afterAll(async () => {
    await killAll();
    await client?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function sendThroughA(path: string, body: Record<string, unknown>) {
    const reply = await api(a, accountA, 'POST', path, { status_callback: client.url('/status'), ...body });
    expect(reply.status, show(reply.body)).toBe(202);
    return reply.body;
  }

  async function statusInA(handle: string) {
    const reply = await api(a, accountA, 'GET', `/api/status?handle=${handle}`);
    expect(reply.status, show(reply.body)).toBe(200);
    return reply.body;
  }

  const callbacksFor = (handle: string) =>
    client.received.filter((request) => request.json?.message_handle === handle).map((request) => request.json);

  it(
    'relays a send to READ under A’s own handle, with each status called back to A’s client once, in order',
    async () => {
      const sent = await sendThroughA('/api/send-message', { number: '+14155550100', content: 'through the relay' });
      const handle: string = sent.message_handle;

      await eventually('A’s message to reach READ', async () => ((await statusInA(handle)).status === 'READ' ? true : undefined));
      await eventually('the READ callback', async () => (callbacksFor(handle).some((body) => body.status === 'READ') ? true : undefined));

      const callbacks = callbacksFor(handle);
      expect(
        callbacks.map((body) => body.status),
        show(callbacks),
      ).toEqual(['QUEUED', 'SENT', 'DELIVERED', 'READ']);
      expect(callbacks.every((body) => body.message_handle === handle && body.accountEmail === 'client@a.example.com')).toBe(true);
      // B knows the message by its own handle; A's client never sees that one.
      const inB = await api(b, accountB, 'GET', '/accounts/messages');
      expect(inB.body.messages.map((m: any) => m.content)).toContain('through the relay');
      expect(inB.body.messages.map((m: any) => m.message_handle)).not.toContain(handle);
    },
    SLOW,
  );

  it(
    'brings an echo from B back into A as an inbound message in that person’s conversation',
    async () => {
      const number = '+13125550106';
      await sendThroughA('/api/send-message', { number, content: 'echo this' });

      const messages = await eventually('the echo in A', async () => {
        const listed = await api(a, accountA, 'GET', `/accounts/messages?number=${encodeURIComponent(number)}`);
        return listed.body.messages.some((m: any) => !m.is_outbound) ? (listed.body.messages as any[]) : undefined;
      });
      const inbound = messages.find((m) => !m.is_outbound);
      expect(inbound, show(messages)).toMatchObject({ content: 'echo: echo this', number, status: 'RECEIVED', group_id: '' });

      const contacts = await api(a, accountA, 'GET', '/accounts/contacts');
      const contact = contacts.body.find((c: any) => c.phone === number);
      const conversation = await api(a, accountA, 'GET', `/accounts/messages?cid=${contact.cid}`);
      expect(conversation.body.messages.map((m: any) => [m.is_outbound, m.content]).sort(), show(conversation.body)).toEqual([
        [false, 'echo: echo this'],
        [true, 'echo this'],
      ]);
    },
    SLOW,
  );

  it(
    'brings a group member’s echo back into A’s group, under the group_id of A’s send',
    async () => {
      const echoer = '+16175550106';
      const sent = await sendThroughA('/api/send-group-message', { numbers: [echoer, '+16175550100'], content: 'hello group' });

      const listed = await eventually('the group echo in A', async () => {
        const reply = await api(a, accountA, 'GET', `/accounts/messages?group_id=${sent.group_id}`);
        return reply.body.messages.some((m: any) => !m.is_outbound) ? (reply.body.messages as any[]) : undefined;
      });
      expect(listed.map((m) => [m.is_outbound, m.content, m.group_id, m.message_type]).sort(), show(listed)).toEqual([
        [false, 'echo: hello group', sent.group_id, 'group'],
        [true, 'hello group', sent.group_id, 'group'],
      ]);
      expect(listed.find((m) => !m.is_outbound)?.number).toBe(echoer);
    },
    SLOW,
  );

  it(
    'ends a message to the failing number in ERROR 10001 in A',
    async () => {
      const sent = await sendThroughA('/api/send-message', { number: '+15035550103', content: 'will fail' });
      const final = await eventually('ERROR in A', async () => {
        const body = await statusInA(sent.message_handle);
        return body.status === 'ERROR' ? body : undefined;
      });
      expect(final, show(final)).toMatchObject({ status: 'ERROR', error_code: 10001 });
      await eventually('the ERROR callback', async () =>
        callbacksFor(sent.message_handle).some((body) => body.status === 'ERROR') ? true : undefined,
      );
      expect(callbacksFor(sent.message_handle).map((body) => body.status)).toEqual(['QUEUED', 'ERROR']);
    },
    SLOW,
  );

  it(
    'with B down: retries the hand-over, fails it with 10001 once the retries are spent, and delivers once B is back',
    async () => {
      await b.stop();

      // A (the process) keeps the message QUEUED and not handed over while B is unreachable.
      const sent = await sendThroughA('/api/send-message', { number: '+17025550100', content: 'while B is down' });
      const waiting = await statusInA(sent.message_handle);
      expect(waiting.status).toBe('QUEUED');

      // The same transport and courier in-process, with short retries, against the unreachable B: ERROR 10001.
      const t = makeTestApp({ transportName: 'upstream' });
      const transport = createUpstreamTransport(t.deps, {
        url: b.url,
        keyId: accountB.api_key_id,
        secret: accountB.api_secret_key,
        publicUrl: 'http://127.0.0.1:9',
        onWebhookSecret: () => {},
        outboundPolicy: LOOPBACK_ALLOWED,
      });
      const courier = createCourier(t.deps, transport, { retryDelaysMs: [10, 10], concurrency: 1 });
      const handle = (await send(t, await t.createAccount())).message_handle;
      courier.enqueue(handle);
      const failed = await eventually('the in-process relay to give up', async () => {
        await courier.idle();
        const message = (await t.store.messages.findByAnyHandle(handle))!;
        return message.status === 'ERROR' ? message : undefined;
      });
      expect(failed).toMatchObject({ status: 'ERROR', errorCode: 10001, transportHandle: null });
      await courier.stop();
      await transport.stop();

      // B back on the same port: A's courier's next retry hands the message over and it completes.
      b = await startServer([], envB(portB), SLOW);
      await eventually('A’s message to reach READ after B returned', async () =>
        (await statusInA(sent.message_handle)).status === 'READ' ? true : undefined,
      );
    },
    SLOW * 2,
  );
});
