/**
 * Server CPU per send, in-process: the real app (`app.request`, no sockets) on a database file,
 * with the sandbox transport wired as `serve` wires it (sends plan their timeline as they are stored). Measures CPU
 * time (user + system) of this process, so the load from other work on the machine does not
 * count. Two rounds per mode, the second reported (the first warms the JIT and the page cache).
 *
 *   npx tsx bench/send-cost.ts [--backend sqlite|postgres] [--sends 2000] [--in-flight 32] [--new-end-users] [--database FILE] [--cpu-prof via node flags]
 *
 * --backend postgres runs on a PostgreSQL server started for the run (bench/cost-backend.ts) and
 * adds its processes' CPU (every backend and background process of that server, from /proc), so a
 * line reads `app + database = total` µs per send.
 *
 * --new-end-users sends every request to someone not messaged before (a new contact and pin per
 * send, as `npm run bench` does) instead of the same end users each round.
 *
 * --database runs on that file (e.g. a copy of the million-message database `npm run bench` seeds,
 * in $TMPDIR/textrelay-bench-cache/) instead of a fresh one: its indexes are what make writes dear.
 *
 * Modes: `sequential` awaits each send before the next (one send per transaction at best);
 * `in-flight` keeps N sends outstanding, as a loaded server sees them. The sends per second of
 * wall-clock time say whether a round was bound by CPU or waited on something else (a lock, a sync).
 */
import { parseArgs } from 'node:util';
import { createCourier } from '../src/transports/courier.ts';
import { createSandboxAtSend, createSandboxTransport } from '../src/transports/sandbox.ts';
import { makeTestApp } from '../test/helpers/app.ts';
import { cpuNow, cpuPerOperation, openCostBackend } from './cost-backend.ts';

const { values } = parseArgs({
  options: {
    sends: { type: 'string', default: '2000' },
    'in-flight': { type: 'string', default: '32' },
    'new-end-users': { type: 'boolean', default: false },
    database: { type: 'string' },
    backend: { type: 'string', default: 'sqlite' },
  },
});
const SENDS = Number(values.sends);
const IN_FLIGHT = Number(values['in-flight']);

const backend = await openCostBackend(values.backend, { sqliteFile: values.database });
const STEP_MS = 60_000;
const sandboxAtSend = createSandboxAtSend({ stepMs: STEP_MS });
const testApp = makeTestApp({ ...backend.appOptions, transportAtSend: sandboxAtSend });
const transport = createSandboxTransport(testApp.deps, { stepMs: STEP_MS });
const courier = createCourier(testApp.deps, transport);
testApp.notifier.subscribe({ messageQueued: courier.enqueue, sandboxPlanned: transport.planned });
transport.start();
const account = await testApp.createAccount({ plan: 'sapphire' });

let sent = 0;
async function sendOne(): Promise<void> {
  sent += 1;
  // Distinct end users, as real traffic; unless new ones are asked for, the same ones every round,
  // so rounds compare (the first pins lines and creates contacts).
  const number = values['new-end-users'] ? `+1415${String(5_000_000 + sent)}` : `+1415555${String(10_000 + (sent % SENDS)).slice(1)}`;
  const reply = await testApp.call('POST', '/api/send-message', account, { number, content: `hello ${sent}` });
  if (reply.status !== 202) throw new Error(`send answered ${reply.status}: ${JSON.stringify(reply.body)}`);
}

/** Lets the courier finish the hand-overs queued by the round, so they are counted in it. */
async function drain(): Promise<void> {
  for (let i = 0; i < 50; i += 1) await new Promise((resolve) => setImmediate(resolve));
}

async function round(mode: 'sequential' | 'in-flight') {
  const start = cpuNow(backend);
  const startedAt = performance.now();
  if (mode === 'sequential') {
    for (let i = 0; i < SENDS; i += 1) await sendOne();
  } else {
    let started = 0;
    const worker = async () => {
      while (started < SENDS) {
        started += 1;
        await sendOne();
      }
    };
    await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  }
  await drain();
  const perSecond = Math.round(SENDS / ((performance.now() - startedAt) / 1000));
  return { ...cpuPerOperation(backend, start, SENDS), perSecond };
}

const shown = ({ app, database }: { app: number; database: number }) =>
  backend.name === 'sqlite' ? `${app.toFixed(0)}` : `${app.toFixed(0)} + ${database.toFixed(0)} = ${(app + database).toFixed(0)}`;

for (const mode of ['sequential', 'in-flight'] as const) {
  const first = await round(mode);
  const second = await round(mode);
  const label = mode === 'in-flight' ? `${IN_FLIGHT} in flight` : mode;
  console.log(`${backend.name} ${label}: ${shown(second)} µs CPU per send, ${second.perSecond} sends/s (first round ${shown(first)})`);
}

await transport.stop();
await courier.stop();
await testApp.close();
await backend.close();
