import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, onTestFailed } from 'vitest';
import { type Received, startReceiver } from '../callbacks/receiver.ts';
import { expectCallbacksOnce } from '../helpers/callbacks.ts';
import { jsonRequest, type Reply, readReply } from '../helpers/http.ts';
import { type Credentials, createAccount, eventually } from '../helpers/live.ts';
import { killAll, type RunningServer, startServer } from '../helpers/process.ts';
import { seededRandom, seedFrom } from '../helpers/seeded-random.ts';

/**
 * A real `textrelay serve` killed with SIGKILL at random moments while clients send messages and
 * the transport reports statuses, then restarted on the same file each time. Afterwards: every
 * request answered 2xx is stored, every callback row is delivered, no status went backwards, and
 * each status of each message reached the receiver under one webhook-id only.
 *
 * The moments and the workload come from a seed, printed on failure: TEXTRELAY_CRASH_SEED=<seed>
 * replays the same choices (the interleaving with the server's own timers still varies).
 */

const SEED = seedFrom('TEXTRELAY_CRASH_SEED');
const KILLS = 3;
const WORKERS = 6;
/** Bounds the checks' work on a fast machine: past it, workers only ingest and read. */
const MAX_SENDS = 600;
const INGEST_SECRET = 'ingest-secret-of-the-crash-test';
const SLOW = 150_000;

const RANK: Record<string, number> = { QUEUED: 0, SENT: 1, DELIVERED: 2, READ: 3, ERROR: 4 };
/** Sandbox numbers by what they do: read, delivered and never read (READ only comes by ingest), noisy (duplicates, out of order). */
const BEHAVIOURS = ['0100', '0101', '0105'] as const;
const AREAS = ['415', '212', '305', '617', '312', '206'];

type Send = { key: string; suffix: (typeof BEHAVIOURS)[number]; body: Record<string, string>; handle?: string };
type Ingest = { id: string; handle: string; acked: boolean };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function request(
  server: RunningServer,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<Reply> {
  return readReply(await fetch(`${server.url}${path}`, jsonRequest(method, headers, body)));
}

const credentialHeaders = (account: Credentials) => ({
  'svc-api-key-id': account.api_key_id,
  'svc-api-secret-key': account.api_secret_key,
});

describe('crash: kill -9 under load, restart on the same file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'textrelay-crash-'));
  const db = join(dir, 'textrelay.db');
  afterAll(async () => {
    await killAll();
    rmSync(dir, { recursive: true, force: true });
  });

  it(
    'keeps every acknowledged request, delivers every callback once per status, never moves a status back',
    async () => {
      onTestFailed(() => console.error(`crash test failed with TEXTRELAY_CRASH_SEED=${SEED} (set it to replay these choices)`));
      const random = seededRandom(SEED);
      const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
      const receiver = await startReceiver();
      const account = await createAccount(db, 'crash@example.com');
      const headers = credentialHeaders(account);
      const env = {
        PORT: '0',
        TEXTRELAY_DB: db,
        TEXTRELAY_SANDBOX_STEP_MS: '30',
        TEXTRELAY_INGEST_SECRET: INGEST_SECRET,
        TEXTRELAY_RATE_LIMIT_PER_MINUTE: '0',
        TEXTRELAY_WEBHOOK_RETRY_SCHEDULE: Array.from({ length: 50 }, () => '0.2').join(','),
        LOG_LEVEL: 'silent',
      };

      const sends: Send[] = [];
      const ingests: Ingest[] = [];
      /** Highest status a 200 of GET /api/status showed, per handle. */
      const observed = new Map<string, number>();
      /** Answers no client should ever get (a 5xx from a live server, a refusal of a valid request). */
      const unexpected: string[] = [];
      let server = await startServer([], env, SLOW);
      let loading = true;
      /** Clients wait while the server is down: only the requests in flight at the kill go unanswered. */
      let serving: Promise<void> = Promise.resolve();

      const sendOne = async (target: RunningServer) => {
        const index = sends.length;
        const suffix = pick(BEHAVIOURS);
        const send: Send = {
          key: `crash-${SEED}-${index}`,
          suffix,
          body: {
            number: `+1${AREAS[index % AREAS.length]}555${suffix}`,
            content: `crash test ${index}`,
            status_callback: receiver.url('/status'),
          },
        };
        sends.push(send);
        const reply = await request(target, 'POST', '/api/send-message', { ...headers, 'idempotency-key': send.key }, send.body);
        if (reply.status === 202) send.handle = reply.body.message_handle;
        else unexpected.push(`send ${reply.status} ${JSON.stringify(reply.body)}`);
      };
      const ingestOne = async (target: RunningServer, handle: string) => {
        const ingest: Ingest = { id: `evt-${SEED}-${ingests.length}`, handle, acked: false };
        ingests.push(ingest);
        const reply = await request(
          target,
          'POST',
          '/webhooks/status',
          { 'svc-signing-secret': INGEST_SECRET, 'webhook-id': ingest.id },
          { message_handle: handle, status: 'READ' },
        );
        if (reply.status === 200) ingest.acked = true;
        else unexpected.push(`ingest ${reply.status} ${JSON.stringify(reply.body)}`);
      };
      const observeOne = async (target: RunningServer, handle: string) => {
        const reply = await request(target, 'GET', `/api/status?handle=${handle}`, headers);
        if (reply.status !== 200) return unexpected.push(`status ${reply.status} ${JSON.stringify(reply.body)}`);
        observed.set(handle, Math.max(observed.get(handle) ?? 0, RANK[reply.body.status]!));
      };
      const worker = async () => {
        while (loading) {
          await serving;
          const target = server;
          const handled = sends.filter((send) => send.handle !== undefined);
          const unread = handled.filter((send) => send.suffix === '0101');
          const roll = random();
          try {
            if ((roll < 0.6 && sends.length < MAX_SENDS) || unread.length === 0) await sendOne(target);
            else if (roll < 0.85) await ingestOne(target, pick(unread).handle!);
            else await observeOne(target, pick(handled).handle!);
          } catch {
            // The server was killed while this request was in flight: it got no answer.
          }
        }
      };

      const workers = Array.from({ length: WORKERS }, worker);
      for (let kill = 0; kill < KILLS; kill++) {
        await sleep(300 + Math.floor(random() * 1_200));
        let restarted!: () => void;
        serving = new Promise((resolve) => (restarted = resolve));
        await server.stop('SIGKILL');
        server = await startServer([], env, SLOW);
        restarted();
      }
      await sleep(300);
      loading = false;
      await Promise.all(workers);

      // A client retries what got no answer, with the same Idempotency-Key or webhook-id.
      for (const send of sends.filter((s) => s.handle === undefined)) {
        const reply = await request(server, 'POST', '/api/send-message', { ...headers, 'idempotency-key': send.key }, send.body);
        expect(reply.status, JSON.stringify(reply.body)).toBe(202);
        send.handle = reply.body.message_handle;
      }
      for (const ingest of ingests.filter((i) => !i.acked)) {
        const reply = await request(
          server,
          'POST',
          '/webhooks/status',
          { 'svc-signing-secret': INGEST_SECRET, 'webhook-id': ingest.id },
          { message_handle: ingest.handle, status: 'READ' },
        );
        expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      }
      expect(unexpected, 'answers of a live server').toEqual([]);

      const ingestedFor = (handle: string) => ingests.filter((ingest) => ingest.handle === handle).length;
      const finalStatus = (send: Send) => (send.suffix === '0101' && ingestedFor(send.handle!) === 0 ? 'DELIVERED' : 'READ');

      const allDeliveries = async () => {
        const all: any[] = [];
        for (let offset = 0; ; offset += 200) {
          const page = await request(server, 'GET', `/accounts/webhooks/deliveries?limit=200&offset=${offset}`, headers);
          expect(page.status).toBe(200);
          all.push(...page.body.deliveries);
          if (page.body.deliveries.length < 200) return all;
        }
      };
      const allMessages = async () => {
        const all: any[] = [];
        for (let offset = 0; ; offset += 1000) {
          const page = await request(server, 'GET', `/accounts/messages?limit=1000&offset=${offset}`, headers);
          expect(page.status).toBe(200);
          all.push(...page.body.messages);
          if (page.body.messages.length < 1000) return all;
        }
      };

      // Rows leased by a killed process come back when their lease lapses (a minute at most).
      await eventually(
        'every timeline finished and every callback delivered',
        async () => {
          const messages = await allMessages();
          const bySend = new Map(messages.map((message) => [message.message_handle, message.status]));
          if (sends.some((send) => bySend.get(send.handle!) !== finalStatus(send))) return undefined;
          const deliveries = await allDeliveries();
          return deliveries.every((delivery) => delivery.state === 'delivered') ? true : undefined;
        },
        SLOW - 20_000,
      );

      // Every acknowledged send is stored, and a retried one is the same message, not a second one.
      const messages = await allMessages();
      expect(messages).toHaveLength(sends.length);
      expect(new Set(messages.map((message) => message.message_handle))).toEqual(new Set(sends.map((send) => send.handle)));

      const received = new Map<string, Received[]>();
      for (const callback of receiver.received) {
        const handle = callback.json?.message_handle as string;
        received.set(handle, [...(received.get(handle) ?? []), callback]);
      }
      const deliveries = await allDeliveries();
      const deliveredIds = new Set(deliveries.map((delivery) => delivery.id));
      for (const send of sends) {
        const handle = send.handle!;
        const status = await request(server, 'GET', `/api/status?handle=${handle}&history=1`, headers);
        const history = status.body.history as { status: string; applied: boolean; implied: boolean }[];
        const applied = history.filter((event) => event.applied).map((event) => event.status);
        const context = JSON.stringify({
          seed: SEED,
          handle,
          suffix: send.suffix,
          history,
          callbacks: received.get(handle)?.map((r) => [r.json.status, r.headers['webhook-id']]),
        });

        // No status went backwards: applied events only climb, and nothing seen earlier is above the final one.
        expect(
          applied.map((s) => RANK[s]),
          context,
        ).toEqual([...applied.map((s) => RANK[s]!)].sort((a, b) => a - b));
        expect(new Set(applied).size, context).toBe(applied.length);
        expect(observed.get(handle) ?? 0, context).toBeLessThanOrEqual(RANK[status.body.status]!);
        // Every acknowledged ingest event is in the history once (for 0101, only ingestion reports READ).
        if (send.suffix === '0101') {
          expect(
            history.filter((event) => event.status === 'READ' && !event.implied),
            context,
          ).toHaveLength(ingestedFor(handle));
        }

        // One callback per applied status, in order, each status always under the same webhook-id, that of its outbox row.
        expectCallbacksOnce(receiver, [handle], applied);
        for (const callback of received.get(handle) ?? [])
          expect(deliveredIds.has(String(callback.headers['webhook-id'])), context).toBe(true);
      }
      await server.stop('SIGTERM');
      await receiver.close();
    },
    SLOW + 30_000,
  );
});
