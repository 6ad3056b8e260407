/**
 * Status-ingest throughput: unique status events per second that a real `textrelay serve`
 * commits through POST /webhooks/status, with N keep-alive connections posting at once.
 *
 *   npm run bench:ingest -- [--messages 4000] [--connections 32] [--label baseline] [--root DIR]
 *
 * --root runs the server from another checkout of textrelay (e.g. `git archive` of an older
 * commit with node_modules linked), to compare two versions on the same machine and seed.
 *
 * Messages are seeded in a fresh database file (sent and handed over, each with a status callback
 * so every applied status also writes its outbox row, as in production). Each message then gets
 * SENT, DELIVERED and READ, each with its own webhook-id: every request is one applied change.
 * Figures go to bench/results/ingest.json under the label.
 */
import { execSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { closeDatabase } from '../src/db/sqlite/connection.ts';
import { createAccount } from '../src/services/accounts.ts';
import { recordHandover } from '../src/services/handover.ts';
import { sendMessage } from '../src/services/send-message.ts';
import { openBenchDeps } from './deps.ts';
import { REPO_ROOT, startServer, startSink } from './processes.ts';
import { recordResult } from './record-result.ts';

const RESULTS = new URL('results/ingest.json', import.meta.url);
const SECRET = 'bench-ingest-secret';
const STATUSES = ['SENT', 'DELIVERED', 'READ'] as const;
const WARMUP_MESSAGES = 300;

const { values: args } = parseArgs({
  options: {
    messages: { type: 'string', default: '4000' },
    connections: { type: 'string', default: '32' },
    label: { type: 'string', default: 'run' },
    root: { type: 'string' },
    /** Seed messages without a status callback: ingest alone, no outbox rows and no dispatcher work. */
    'no-callbacks': { type: 'boolean', default: false },
  },
});
const messageCount = Number(args.messages);
const connections = Number(args.connections);

/** Seeds `count + WARMUP_MESSAGES` handed-over messages known upstream as bench-<i>. */
async function seed(file: string, callbackUrl: string | undefined, count: number): Promise<void> {
  const { db, deps } = openBenchDeps(file);
  await createAccount(deps, { email: 'bench@example.com', plan: 'sapphire' });
  const account = (await deps.store.accounts.findByEmail('bench@example.com'))!;
  for (let i = 0; i < count; i += 1) {
    const number = `+1212${String(4_560_000 + i).padStart(7, '0')}`;
    const { body } = await sendMessage(deps, account, { number, content: `bench ${i}`, statusCallback: callbackUrl });
    await recordHandover(deps, body.message_handle, { transportHandle: `bench-${i}` });
  }
  closeDatabase(db);
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

/** Posts events[from..to) over `connections` concurrent keep-alive connections; returns latencies and failures. */
async function drive(pool: Pool, events: { handle: string; status: string; id: string }[]) {
  const latencies: number[] = [];
  let failures = 0;
  let next = 0;
  async function worker(): Promise<void> {
    while (next < events.length) {
      const event = events[next++]!;
      const started = performance.now();
      try {
        const answer = await pool.request({
          method: 'POST',
          path: '/webhooks/status',
          headers: { 'content-type': 'application/json', 'svc-signing-secret': SECRET, 'webhook-id': event.id },
          body: JSON.stringify({
            message_handle: event.handle,
            status: event.status,
            error_code: null,
            error_message: null,
            was_downgraded: false,
          }),
        });
        await answer.body.text();
        if (answer.statusCode !== 200) failures += 1;
      } catch {
        failures += 1;
      }
      latencies.push(performance.now() - started);
    }
  }
  const started = performance.now();
  await Promise.all(Array.from({ length: connections }, worker));
  return { seconds: (performance.now() - started) / 1000, latencies: latencies.sort((a, b) => a - b), failures };
}

/** Status by status across all messages, so concurrent requests rarely touch the same message. */
function eventsFor(first: number, count: number, run: string) {
  return STATUSES.flatMap((status) =>
    Array.from({ length: count }, (_, i) => ({ handle: `bench-${first + i}`, status, id: `${run}-${first + i}-${status}` })),
  );
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'textrelay-bench-'));
  const file = join(dir, 'bench.db');
  const sink = await startSink();
  await seed(file, args['no-callbacks'] ? undefined : sink.url, WARMUP_MESSAGES + messageCount);
  const server = await startServer({ root: args.root, env: { TEXTRELAY_DB: file, TEXTRELAY_INGEST_SECRET: SECRET } });
  const pool = new Pool(server.url, { connections, pipelining: 1 });
  try {
    await drive(pool, eventsFor(messageCount, WARMUP_MESSAGES, 'warmup'));
    const run = await drive(pool, eventsFor(0, messageCount, 'run'));
    const events = run.latencies.length;
    const result = {
      label: args.label,
      date: new Date().toISOString(),
      commit: execSync('git rev-parse --short HEAD', { cwd: REPO_ROOT }).toString().trim(),
      serverRoot: args.root ?? 'this checkout',
      node: process.version,
      cpus: `${cpus().length} x ${cpus()[0]?.model ?? 'unknown'}`,
      messages: messageCount,
      statusCallbacks: !args['no-callbacks'],
      connections,
      events,
      failures: run.failures,
      seconds: Number(run.seconds.toFixed(3)),
      eventsPerSecond: Math.round(events / run.seconds),
      latencyMs: {
        p50: Number(percentile(run.latencies, 50).toFixed(2)),
        p90: Number(percentile(run.latencies, 90).toFixed(2)),
        p99: Number(percentile(run.latencies, 99).toFixed(2)),
        max: Number((run.latencies.at(-1) ?? 0).toFixed(2)),
      },
    };
    recordResult(RESULTS, result);
  } finally {
    await pool.close();
    await server.stop();
    sink.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
