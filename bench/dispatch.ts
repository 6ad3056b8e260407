/**
 * Webhook dispatch throughput: deliveries per second from the outbox to a local receiver that
 * answers 200 at once, through the real dispatcher loop (claims, signing, undici keep-alive pool,
 * batched completions) on a database file.
 *
 *   npm run bench:dispatch -- [--messages 5000] [--label baseline]
 *
 * Each message is sent with a status callback and then goes SENT, DELIVERED, READ through the
 * status service: four outbox rows per message, to be delivered in order. The receiver runs in its
 * own process, as a client's service would: pinned as `npm run bench` pins them, this process on core
 * 0 and the receiver on core 1. Figures go to bench/results/dispatch.json under the label, with the
 * dispatcher's CPU per delivery.
 * `npm run bench` runs the same measurement through measureDispatch().
 */
import { execSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Agent } from 'undici';
import { createDispatcher, type Dispatcher } from '../src/callbacks/dispatcher.ts';
import { DISPATCHER_DEFAULTS, dispatcherOptionsFromConfig } from '../src/callbacks/dispatcher-options.ts';
import { loadConfig } from '../src/config.ts';
import type { AccountRow } from '../src/db/rows.ts';
import { closeDatabase, type Db } from '../src/db/sqlite/connection.ts';
import { createMetrics } from '../src/metrics/metrics.ts';
import { createAccount } from '../src/services/accounts.ts';
import type { ServiceDeps } from '../src/services/deps.ts';
import { recordStatus } from '../src/services/record-status.ts';
import { sendMessage } from '../src/services/send-message.ts';
import { getGatewayStats } from '../src/services/stats.ts';
import { openBenchDeps } from './deps.ts';
import { pinProcess, REPO_ROOT, spawnPinned, stopChild, waitForLine } from './processes.ts';
import { recordResult } from './record-result.ts';

const RESULTS = new URL('results/dispatch.json', import.meta.url);

const RECEIVER = `
const http = require('node:http');
let count = 0;
const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => { count++; res.writeHead(200, { 'content-type': 'text/plain' }).end('ok'); });
});
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.1', () => console.log('port ' + server.address().port));
process.on('SIGTERM', () => { console.log('received ' + count); process.exit(0); });
`;

export async function startReceiver(cpu: number | undefined) {
  const child = spawnPinned(cpu, process.execPath, ['-e', RECEIVER], { stdio: ['ignore', 'pipe', 'inherit'] });
  const received = waitForLine(child, /received (\d+)/);
  // Read by stop(); a receiver that dies early rejects there, not as an unhandled rejection.
  received.catch(() => undefined);
  const [, port] = await waitForLine(child, /port (\d+)/);
  return {
    url: `http://127.0.0.1:${port}/status`,
    pid: child.pid!,
    stop: async () => {
      await stopChild(child);
      return Number((await received)[1]);
    },
  };
}

async function benchAccount(deps: ServiceDeps) {
  await createAccount(deps, { email: 'bench@example.com', plan: 'sapphire' });
  return (await deps.store.accounts.findByEmail('bench@example.com'))!;
}

/** Sends `messageCount` messages (numbers from `firstNumber` on) through QUEUED, SENT, DELIVERED and READ; returns the pending rows. */
export async function seed(
  deps: ServiceDeps,
  account: AccountRow,
  callbackUrl: string,
  messageCount: number,
  firstNumber = 0,
): Promise<number> {
  for (let i = firstNumber; i < firstNumber + messageCount; i += 1) {
    const number = `+1212${String(4_560_000 + i).padStart(7, '0')}`;
    const { body } = await sendMessage(deps, account, { number, content: `bench ${i}`, statusCallback: callbackUrl });
    for (const status of ['SENT', 'DELIVERED', 'READ'] as const) {
      await recordStatus(deps, { handle: body.message_handle, status, source: 'bench' });
    }
  }
  return (await deps.store.outbox.countByState()).pending;
}

/** Runs a dispatcher until nothing is pending; resolves with the time of the last completion. */
async function drain(dispatcher: Dispatcher, db: Db): Promise<number> {
  // Asked through the due index, not by counting every row: the poll must not take CPU from the dispatcher it measures.
  const unfinished = db.$client.prepare(
    `select exists (select 1 from webhook_deliveries where state in ('pending', 'delivering')) as left`,
  );
  dispatcher.start();
  // Timed by the last completion rather than by the poll.
  while ((unfinished.get() as { left: number }).left === 1) {
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  await dispatcher.stop();
  return (db.$client.prepare('select max(completed_at) as last from webhook_deliveries').get() as { last: number }).last;
}

/**
 * The ceiling of this machine for the same exchange: bare undici POSTs of a callback-sized body to
 * the same receiver through `dispatch()` (the dispatcher's own way, cheaper than `request()`), as
 * many in flight as the dispatcher allows one host, no database, no signing, no deadline.
 */
async function bareUndici(url: string, requests: number): Promise<{ perSecond: number; posted: number }> {
  const agent = new Agent({ connections: DISPATCHER_DEFAULTS.perHostConcurrency, keepAliveTimeout: 30_000 });
  const body = JSON.stringify({ status: 'DELIVERED', message_handle: randomUUID(), content: 'bench', accountEmail: 'bench@example.com' });
  const { origin, pathname } = new URL(url);
  const postOnce = () =>
    new Promise<void>((resolve, reject) => {
      agent.dispatch(
        { origin, path: pathname, method: 'POST', body, headers: { 'content-type': 'application/json' } },
        // onRequestStart marks the handler as of undici's current interface; it has nothing to do here.
        { onRequestStart: () => {}, onResponseEnd: () => resolve(), onResponseError: (_, error) => reject(error) },
      );
    });
  async function post(count: number): Promise<number> {
    let next = 0;
    const started = performance.now();
    async function worker(): Promise<void> {
      while (next < count) {
        next += 1;
        await postOnce();
      }
    }
    await Promise.all(Array.from({ length: DISPATCHER_DEFAULTS.perHostConcurrency }, worker));
    return (performance.now() - started) / 1000;
  }
  // Unwarmed, the same client ran at about 60% of its speed (JIT, connections): the ceiling is the warm figure.
  const warmUp = Math.min(requests, 10_000);
  await post(warmUp);
  const seconds = await post(requests);
  await agent.close();
  return { perSecond: Math.round(requests / seconds), posted: warmUp + requests };
}

export type DispatchMeasure = {
  messages: number;
  deliveries: number;
  delivered: number;
  failed: number;
  receivedByReceiver: number;
  seconds: number;
  deliveriesPerSecond: number;
  bareUndiciRequestsPerSecond: number;
  ratioToBare: number;
  /** This process's CPU (dispatcher, store, undici) over the timed drain, per delivery: the firmer figure on a shared machine. */
  cpuMicrosPerDelivery: number;
  /** What the delivery log (deliveries, attempts and their indexes) takes on disk per callback delivered. */
  deliveryLogBytesPerCallback: number;
};

/** Pages of the webhook tables and their indexes (SQLite's dbstat), over the deliveries they hold. */
function deliveryLogBytesPerCallback(db: Db): number {
  const { bytes } = db.$client.prepare(`select sum(pgsize) as bytes from dbstat where name like 'webhook\\_%' escape '\\'`).get() as {
    bytes: number;
  };
  const { rows } = db.$client.prepare('select count(*) as rows from webhook_deliveries').get() as { rows: number };
  return Math.round(bytes / rows);
}

/**
 * Seeds `messageCount` x 4 outbox rows, then times the dispatcher delivering them all. The
 * dispatcher runs in this process; the receiver in its own, on core `receiverCpu` when given.
 */
export async function measureDispatch(messageCount: number, options: { receiverCpu?: number } = {}): Promise<DispatchMeasure> {
  const dir = mkdtempSync(join(tmpdir(), 'textrelay-bench-dispatch-'));
  const receiver = await startReceiver(options.receiverCpu);
  const { db, deps } = openBenchDeps(join(dir, 'bench.db'), 'warn');
  try {
    const bare = await bareUndici(receiver.url, messageCount * 4);
    const account = await benchAccount(deps);
    const metrics = createMetrics({ version: 'bench', readStats: () => getGatewayStats(deps) });
    const newDispatcher = () =>
      createDispatcher(
        { ...deps, metrics },
        { ...dispatcherOptionsFromConfig(loadConfig({})), outboundPolicy: { allowPrivate: true, allowLinkLocal: false } },
      );
    // As for the bare client: a first pass compiles the dispatcher's code, the timed one measures it warm.
    const warmUpMessages = Math.ceil(messageCount / 5);
    await seed(deps, account, receiver.url, warmUpMessages);
    await drain(newDispatcher(), db);
    const rows = await seed(deps, account, receiver.url, messageCount, warmUpMessages);
    const started = Date.now();
    const cpuBefore = process.cpuUsage();
    const seconds = ((await drain(newDispatcher(), db)) - started) / 1000;
    const cpu = process.cpuUsage(cpuBefore);
    const counts = await deps.store.outbox.countByState();
    const received = await receiver.stop();
    return {
      messages: messageCount,
      deliveries: rows,
      delivered: counts.delivered - warmUpMessages * 4,
      failed: counts.failed,
      receivedByReceiver: received - bare.posted - warmUpMessages * 4,
      seconds: Number(seconds.toFixed(3)),
      deliveriesPerSecond: Math.round(rows / seconds),
      bareUndiciRequestsPerSecond: bare.perSecond,
      ratioToBare: Number((rows / seconds / bare.perSecond).toFixed(2)),
      cpuMicrosPerDelivery: Math.round((cpu.user + cpu.system) / rows),
      deliveryLogBytesPerCallback: deliveryLogBytesPerCallback(db),
    };
  } finally {
    await receiver.stop().catch(() => 0);
    closeDatabase(db);
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values: args } = parseArgs({
    options: {
      messages: { type: 'string', default: '5000' },
      label: { type: 'string', default: 'run' },
    },
  });
  // As `npm run bench` runs it: the dispatcher on core 0, the receiver on core 1.
  pinProcess(0);
  const measured = await measureDispatch(Number(args.messages), { receiverCpu: 1 });
  recordResult(RESULTS, {
    label: args.label,
    date: new Date().toISOString(),
    commit: execSync('git rev-parse --short HEAD', { cwd: REPO_ROOT }).toString().trim(),
    node: process.version,
    cpus: `${cpus().length} x ${cpus()[0]?.model ?? 'unknown'}`,
    ...measured,
  });
}
