import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, onTestFailed } from 'vitest';
import { startReceiver } from '../callbacks/receiver.ts';
import { TEST_BACKEND } from '../helpers/app.ts';
import { expectCallbacksOnce } from '../helpers/callbacks.ts';
import { jsonRequest, type Reply, readReply } from '../helpers/http.ts';
import { createAccount, eventually } from '../helpers/live.ts';
import { freshPostgresDatabase, type TestPostgresDatabase } from '../helpers/postgres-database.ts';
import { killAll, type RunningServer, startServer } from '../helpers/process.ts';
import { seededRandom, seedFrom } from '../helpers/seeded-random.ts';

/**
 * A real `textrelay serve` on the test backend, killed with SIGKILL at random moments while 64
 * clients keep requests in flight at once (sends with and without an Idempotency-Key, status
 * events, inbound messages), so that each kill lands among requests gathered into one commit;
 * restarted on the same database each time. Afterwards every request answered 2xx is stored once,
 * a send retried with its key answers the same message, and every acknowledged status reaches the
 * status callback once, in order.
 *
 * The sandbox's own reports are a day away: every status comes from the test's events, so each
 * message's history is known. TEXTRELAY_CRASH_SEED=<seed> replays the choices of a failed run.
 */

const SEED = seedFrom('TEXTRELAY_CRASH_SEED');
const KILLS = 3;
/** Each kill comes after this many to four times this many answers since the one before. */
const MIN_ANSWERS = 40;
const CLIENTS = 64;
const INGEST_SECRET = 'ingest-secret-of-the-batch-crash-test';
/** A dispatcher killed mid-post holds its callbacks' leases for 20 s: the checks wait that out. */
const SLOW = 120_000;
const CHAIN = ['SENT', 'DELIVERED', 'READ'] as const;

type Send = {
  index: number;
  key: string | undefined;
  content: string;
  /** Set once the send was answered 202 (or, for a keyed one, once its retry was). */
  handle?: string;
  /** The statuses posted for it, in order; the last may be unanswered. */
  posted: { status: string; webhookId: string; acked: boolean }[];
  busy: boolean;
};
type Inbound = { handle: string; content: string; acked: boolean };

async function request(server: RunningServer, method: string, path: string, headers: Record<string, string>, body?: unknown) {
  return readReply(await fetch(`${server.url}${path}`, jsonRequest(method, headers, body)));
}

/** The database the servers share: a SQLite file, or a PostgreSQL database of its own. */
async function database(): Promise<{ url: string; close(): Promise<void> }> {
  if (TEST_BACKEND === 'postgres') {
    const pg: TestPostgresDatabase = await freshPostgresDatabase();
    return pg;
  }
  const dir = mkdtempSync(join(tmpdir(), 'textrelay-crash-batches-'));
  return { url: join(dir, 'textrelay.db'), close: async () => rmSync(dir, { recursive: true, force: true }) };
}

describe(`crash of group-committed batches (${TEST_BACKEND})`, () => {
  afterAll(killAll);

  it(
    'keeps every acknowledged request of every batch once, replays keyed sends, delivers every callback in order',
    async () => {
      onTestFailed(() => console.error(`crash-batches failed with TEXTRELAY_CRASH_SEED=${SEED} (set it to replay these choices)`));
      const random = seededRandom(SEED);
      const db = await database();
      const receiver = await startReceiver();
      try {
        const account = await createAccount(db.url, 'batches@example.com');
        const line = account.numbers[0]!;
        const headers = { 'svc-api-key-id': account.api_key_id, 'svc-api-secret-key': account.api_secret_key };
        const ingestHeaders = (webhookId: string) => ({ 'svc-signing-secret': INGEST_SECRET, 'webhook-id': webhookId });
        const env = {
          PORT: '0',
          TEXTRELAY_DB: db.url,
          TEXTRELAY_SANDBOX_STEP_MS: String(24 * 3600 * 1000),
          TEXTRELAY_INGEST_SECRET: INGEST_SECRET,
          TEXTRELAY_RATE_LIMIT_PER_MINUTE: '0',
          TEXTRELAY_WEBHOOK_RETRY_SCHEDULE: Array.from({ length: 50 }, () => '0.2').join(','),
          LOG_LEVEL: 'silent',
        };

        const sends: Send[] = [];
        const inbound: Inbound[] = [];
        /** Answers no client should get from a live server (a 5xx, a refusal of a valid request). */
        const unexpected: string[] = [];
        let server = await startServer([], env, SLOW);
        let loading = true;
        /** Clients wait while the server is down: only the requests in flight at a kill go unanswered. */
        let serving: Promise<void> = Promise.resolve();
        /** Requests answered so far, whatever the answer. */
        let answered = 0;

        const sendBody = (send: Send) => ({
          number: `+1646555${String(2000 + send.index).padStart(4, '0')}`,
          content: send.content,
          status_callback: receiver.url('/status'),
        });
        const postSend = (target: RunningServer, send: Send): Promise<Reply> =>
          request(target, 'POST', '/api/send-message', send.key ? { ...headers, 'idempotency-key': send.key } : headers, sendBody(send));
        const postStatus = (target: RunningServer, handle: string, event: Send['posted'][number]) =>
          request(target, 'POST', '/webhooks/status', ingestHeaders(event.webhookId), { message_handle: handle, status: event.status });
        const postInbound = (target: RunningServer, message: Inbound) =>
          request(target, 'POST', '/webhooks/receive', ingestHeaders(`in-${message.handle}`), {
            message_handle: message.handle,
            number: `+1917555${message.handle.slice(-4)}`,
            to_number: line,
            content: message.content,
          });

        const sendOne = async (target: RunningServer) => {
          const index = sends.length;
          const send: Send = {
            index,
            key: random() < 0.5 ? `batch-${SEED}-${index}` : undefined,
            content: `batch crash ${SEED} ${index}`,
            posted: [],
            busy: true,
          };
          sends.push(send);
          try {
            const reply = await postSend(target, send);
            if (reply.status === 202) send.handle = reply.body.message_handle;
            else unexpected.push(`send ${reply.status} ${JSON.stringify(reply.body)}`);
          } finally {
            send.busy = false;
          }
        };
        /** The next status of a stored message whose every earlier status was acknowledged: one at a time, so each applies. */
        const statusOne = async (target: RunningServer, send: Send) => {
          const event = { status: CHAIN[send.posted.length]!, webhookId: `st-${SEED}-${send.index}-${send.posted.length}`, acked: false };
          send.posted.push(event);
          send.busy = true;
          try {
            const reply = await postStatus(target, send.handle!, event);
            if (reply.status === 200) event.acked = true;
            // A 202 means the message is unknown: its acknowledged send was lost.
            else unexpected.push(`status of ${send.content}: ${reply.status} ${JSON.stringify(reply.body)}`);
          } finally {
            send.busy = false;
          }
        };
        const inboundOne = async (target: RunningServer) => {
          const message: Inbound = {
            handle: `in-${SEED}-${String(inbound.length).padStart(4, '0')}`,
            content: `inbound ${SEED} ${inbound.length}`,
            acked: false,
          };
          inbound.push(message);
          const reply = await postInbound(target, message);
          if (reply.status === 200) message.acked = true;
          else unexpected.push(`inbound ${reply.status} ${JSON.stringify(reply.body)}`);
        };
        const client = async () => {
          while (loading) {
            await serving;
            if (!loading) return;
            const target = server;
            const ready = sends.filter(
              (send) => send.handle && !send.busy && send.posted.length < CHAIN.length && send.posted.every((event) => event.acked),
            );
            const roll = random();
            try {
              if (roll < 0.45 || ready.length === 0) await sendOne(target);
              else if (roll < 0.85) await statusOne(target, ready[Math.floor(random() * ready.length)]!);
              else await inboundOne(target);
              answered += 1;
            } catch {
              // The server was killed while this request was in flight: it got no answer.
            }
          }
        };

        const clients = Array.from({ length: CLIENTS }, client);
        for (let kill = 0; kill < KILLS; kill++) {
          // A moment counted in answers, not in time: on a loaded machine too, batches are in flight.
          const target = answered + MIN_ANSWERS + Math.floor(random() * MIN_ANSWERS * 3);
          await eventually('the answers before the kill', async () => (answered >= target ? true : undefined), SLOW);
          let restarted!: () => void;
          serving = new Promise((resolve) => (restarted = resolve));
          await server.stop('SIGKILL');
          if (kill === KILLS - 1) loading = false;
          server = await startServer([], env, SLOW);
          restarted();
        }
        await Promise.all(clients);
        expect(unexpected, 'answers of a live server').toEqual([]);

        const allMessages = async () => {
          const all: any[] = [];
          for (let offset = 0; ; offset += 1000) {
            const page = await request(server, 'GET', `/accounts/messages?limit=1000&offset=${offset}`, headers);
            expect(page.status, JSON.stringify(page.body)).toBe(200);
            all.push(...page.body.messages);
            if (page.body.messages.length < 1000) return all;
          }
        };

        // Every acknowledged send and inbound message is stored, none twice.
        const acked = sends.filter((send) => send.handle !== undefined);
        expect(acked.length, 'sends acknowledged before the last kill').toBeGreaterThan(0);
        const before = await allMessages();
        const byHandle = new Map(before.map((message) => [message.message_handle, message]));
        for (const send of acked) expect(byHandle.get(send.handle!)?.content, send.content).toBe(send.content);
        const contents = before.map((message) => message.content as string);
        expect(contents.length, 'a message stored twice').toBe(new Set(contents).size);
        for (const message of inbound.filter((m) => m.acked)) expect(contents, message.handle).toContain(message.content);

        // A keyed send retried after the restarts: the same message for an answered one, nothing new sent.
        for (const send of acked.filter((s) => s.key)) {
          const reply = await postSend(server, send);
          expect(reply.status, JSON.stringify(reply.body)).toBe(202);
          expect(reply.body.message_handle).toBe(send.handle);
        }
        expect(await allMessages()).toHaveLength(before.length);

        // What got no answer, retried as a client would: keyed sends, status events and inbound messages.
        for (const send of sends.filter((s) => s.handle === undefined && s.key)) {
          const reply = await postSend(server, send);
          expect(reply.status, JSON.stringify(reply.body)).toBe(202);
          send.handle = reply.body.message_handle;
        }
        for (const send of sends.filter((s) => s.handle !== undefined))
          for (const event of send.posted.filter((e) => !e.acked)) {
            const reply = await postStatus(server, send.handle!, event);
            expect(reply.status, JSON.stringify(reply.body)).toBe(200);
            event.acked = true;
          }
        for (const message of inbound.filter((m) => !m.acked)) {
          const reply = await postInbound(server, message);
          expect(reply.status, JSON.stringify(reply.body)).toBe(200);
        }

        const after = await allMessages();
        const afterContents = after.map((message) => message.content as string);
        expect(afterContents.length, 'a message stored twice').toBe(new Set(afterContents).size);
        for (const message of inbound) expect(afterContents, message.handle).toContain(message.content);
        const stored = sends.filter((send) => send.handle !== undefined);
        const finalByHandle = new Map(after.map((message) => [message.message_handle, message]));
        for (const send of stored) {
          const expected = send.posted.at(-1)?.status ?? 'QUEUED';
          expect(finalByHandle.get(send.handle!)?.status, send.content).toBe(expected);
          const status = await request(server, 'GET', `/api/status?handle=${send.handle}&history=1`, headers);
          const history = status.body.history as { status: string; applied: boolean }[];
          // Each acknowledged event applied once, in the order posted.
          expect(
            history.filter((event) => event.applied).map((event) => event.status),
            JSON.stringify(history),
          ).toEqual(['QUEUED', ...send.posted.map((event) => event.status)]);
        }

        // Leases held by a killed dispatcher lapse after 20 s: then every callback is out.
        const expectedCallbacks = (send: Send) => 1 + send.posted.length;
        await eventually(
          'every status callback delivered',
          async () => {
            const statuses = new Map<string, Set<string>>();
            for (const callback of receiver.received) {
              const handle = callback.json?.message_handle as string;
              statuses.set(handle, (statuses.get(handle) ?? new Set()).add(callback.json.status));
            }
            return stored.every((send) => (statuses.get(send.handle!)?.size ?? 0) >= expectedCallbacks(send)) ? true : undefined;
          },
          SLOW - 30_000,
        );
        for (const send of stored) expectCallbacksOnce(receiver, [send.handle!], ['QUEUED', ...send.posted.map((event) => event.status)]);
        await server.stop('SIGTERM');
      } finally {
        await killAll();
        await receiver.close();
        await db.close();
      }
    },
    SLOW + 30_000,
  );
});
