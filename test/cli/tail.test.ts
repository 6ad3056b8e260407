import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type Receiver, startReceiver } from '../callbacks/receiver.ts';
import { jsonRequest, readReply } from '../helpers/http.ts';
import { killAll, runCli, type Spawned, spawnCli, startServer } from '../helpers/process.ts';

// `textrelay tail` as a real child process following a real `serve` through the database file.

const NOISY = '+14155550105'; // the sandbox reports every status twice, DELIVERED before SENT
const ECHO = '+14155550106'; // the sandbox's end user answers "echo: <content>"
const SLOW = 120_000;

const folders: string[] = [];
const receivers: Receiver[] = [];
afterEach(killAll);
afterAll(async () => {
  for (const receiver of receivers) await receiver.close();
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

/** Waits until `check` answers something other than undefined; fails with `describe()` after `timeoutMs`. */
async function until<T>(check: () => T | undefined, describe: () => string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`gave up waiting after ${timeoutMs} ms\n${describe()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function outputOf(spawned: Spawned): string {
  return `stdout:\n${spawned.stdout()}\nstderr:\n${spawned.stderr()}`;
}

/** Starts `textrelay tail ...args` and waits for its ready line: from then on, nothing written is missed. */
async function startTail(args: string[], env: Record<string, string>): Promise<Spawned> {
  const tail = spawnCli(['tail', ...args], env);
  await until(
    () => (tail.stderr().includes('Following') ? true : undefined),
    () => outputOf(tail),
  );
  return tail;
}

function jsonLines(spawned: Spawned): any[] {
  return spawned
    .stdout()
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line));
}

describe('textrelay tail', () => {
  it(
    'prints status events (applied or not), inbound messages and webhook attempts as the server writes them; stops on SIGINT',
    async () => {
      const folder = mkdtempSync(join(tmpdir(), 'textrelay-tail-'));
      folders.push(folder);
      const env = { TEXTRELAY_DB: join(folder, 'textrelay.db'), LOG_LEVEL: 'warn', TEXTRELAY_SANDBOX_STEP_MS: '50' };
      const receiver = await startReceiver((request, _index, response) => {
        response.writeHead(request.path === '/down' ? 503 : 200).end();
      });
      receivers.push(receiver);

      const created = await runCli(
        ['accounts', 'create', '--email', 'shop@example.com', '--receive-webhook', receiver.url('/inbound'), '--json'],
        env,
      );
      expect(created.code, created.stderr).toBe(0);
      const account = JSON.parse(created.stdout);
      const headers = { 'svc-api-key-id': account.api_key_id, 'svc-api-secret-key': account.api_secret_key };
      const server = await startServer(['--port', '0'], env);
      const tail = await startTail(['--json'], env);

      const send = async (number: string, content: string, callback: string) => {
        const reply = await readReply(
          await fetch(
            `${server.url}/api/send-message`,
            jsonRequest('POST', headers, { number, content, status_callback: receiver.url(callback) }),
          ),
        );
        expect(reply.status, JSON.stringify(reply.body)).toBe(202);
        return reply.body.message_handle as string;
      };
      const noisy = await send(NOISY, 'twice', '/status');
      const echoed = await send(ECHO, 'ping', '/down');

      const events = await until(
        () => {
          const lines = jsonLines(tail);
          const done =
            lines.some((e) => e.type === 'status' && e.message_handle === noisy && e.status === 'READ' && e.applied) &&
            lines.some((e) => e.type === 'inbound' && e.content === 'echo: ping') &&
            lines.some((e) => e.type === 'webhook' && e.event_type === 'message.received' && e.outcome === 'delivered') &&
            lines.some((e) => e.type === 'webhook' && e.message_handle === echoed && e.outcome === 'retrying');
          return done ? lines : undefined;
        },
        () => outputOf(tail),
      );

      const of = (handle: string) => events.filter((e) => e.type === 'status' && e.message_handle === handle);
      // Every report of the noisy number is there, the duplicates too, with the reason they changed nothing.
      const applied = of(noisy)
        .filter((e) => e.applied)
        .map((e) => e.status);
      expect(
        applied.filter((status) => status !== 'SENT'),
        JSON.stringify(of(noisy)),
      ).toEqual(['QUEUED', 'DELIVERED', 'READ']);
      expect(new Set(applied).size).toBe(applied.length);
      const ignored = of(noisy).filter((e) => !e.applied);
      expect(ignored.length, JSON.stringify(of(noisy))).toBeGreaterThanOrEqual(3);
      for (const event of ignored) expect(event.not_applied_reason, JSON.stringify(event)).toEqual(expect.any(String));
      expect(of(noisy)[0]).toMatchObject({ account: 'shop@example.com', status: 'QUEUED', applied: true, source: 'api' });

      const inbound = events.find((e) => e.type === 'inbound');
      expect(inbound).toMatchObject({ account: 'shop@example.com', from_number: ECHO, content: 'echo: ping' });
      expect(account.numbers).toContain(inbound.to_number);

      const statusCallback = events.find((e) => e.type === 'webhook' && e.message_handle === noisy);
      expect(statusCallback).toMatchObject({
        event_type: 'message.status',
        url: receiver.url('/status'),
        status_code: 200,
        attempt: 1,
        outcome: 'delivered',
      });
      expect(events.find((e) => e.type === 'webhook' && e.message_handle === echoed)).toMatchObject({
        status_code: 503,
        outcome: 'retrying',
      });

      tail.child.kill('SIGINT');
      expect(await tail.exited, outputOf(tail)).toEqual({ code: 0, signal: null });
      expect(await server.stop()).toEqual({ code: 0, signal: null });
    },
    SLOW,
  );

  it(
    '--since prints what happened before it started, one line per event for people',
    async () => {
      const folder = mkdtempSync(join(tmpdir(), 'textrelay-tail-'));
      folders.push(folder);
      const env = { TEXTRELAY_DB: join(folder, 'textrelay.db'), LOG_LEVEL: 'warn' };
      const created = await runCli(['accounts', 'create', '--email', 'shop@example.com', '--json'], env);
      expect(created.code, created.stderr).toBe(0);
      const inbound = await runCli(
        ['inbound', '--email', 'shop@example.com', '--from', '+1 212 456 7000', '--content', 'written before the tail'],
        env,
      );
      expect(inbound.code, inbound.stderr).toBe(0);
      const handle = inbound.stdout.trim();

      // Without --since, nothing that happened before the start is printed.
      const fresh = await startTail([], env);
      const backlog = await startTail(['--since', '1h'], env);
      const isInboundOf = (id: string) => (l: string) => l.includes(id) && / inbound /.test(l);
      const line = await until(
        () => backlog.stdout().split('\n').find(isInboundOf(handle)),
        () => outputOf(backlog),
      );
      expect(line).toMatch(/^\d{4}-\d{2}-\d{2}T\S+Z\s+inbound\s+shop@example\.com\s/);
      expect(line).toContain('+12124567000 -> +');
      expect(line).toContain('"written before the tail"');

      // A new event reaches both.
      const later = await runCli(
        ['inbound', '--email', 'shop@example.com', '--from', '+1 212 456 7000', '--content', 'written after'],
        env,
      );
      const laterHandle = later.stdout.trim();
      for (const tail of [fresh, backlog])
        await until(
          () => tail.stdout().split('\n').find(isInboundOf(laterHandle)),
          () => outputOf(tail),
        );
      // The message is stored RECEIVED: its status event and the message itself.
      const freshLines = fresh.stdout().trim().split('\n');
      expect(freshLines.map((l) => l.split(/\s+/)[1]).sort()).toEqual(['inbound', 'status']);
      for (const l of freshLines) expect(l).toContain(laterHandle);

      for (const tail of [fresh, backlog]) {
        tail.child.kill('SIGINT');
        expect(await tail.exited, outputOf(tail)).toEqual({ code: 0, signal: null });
      }
    },
    SLOW,
  );
});
