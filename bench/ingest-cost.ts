/**
 * Server CPU per ingested status event, in-process: the real app (`app.request`, no sockets) on a
 * fresh database file seeded with handed-over messages, each of which then gets SENT, DELIVERED
 * and READ through `POST /webhooks/status`, each with its own webhook-id (every event is one
 * applied change). Measures CPU time (user + system) of this process, so the load from other work
 * on the machine does not count. Four rounds per mode on messages of their own: the first warms the
 * JIT and the page cache, the median of the other three is reported (a round's figure varies by
 * a fifth or more with where the collector's major pauses fall).
 *
 *   npx tsx bench/ingest-cost.ts [--backend sqlite|postgres] [--messages 2000] [--in-flight 32] [--cpu-prof via node flags]
 *
 * --backend postgres runs on a PostgreSQL server started for the run (bench/cost-backend.ts) and
 * adds its processes' CPU (every backend and background process of that server, from /proc), so a
 * line reads `app + database = total` µs per event, each the median of its rounds.
 *
 * Modes: `no callback` (messages sent without a status_callback: the event, the status change and
 * the account's event log) and `callback` (each change also queues its callback in the outbox; no
 * dispatcher runs, so delivering them is not counted).
 */
import { parseArgs } from 'node:util';
import { recordHandover } from '../src/services/handover.ts';
import { sendMessage } from '../src/services/send-message.ts';
import { makeTestApp } from '../test/helpers/app.ts';
import { cpuNow, cpuPerOperation, openCostBackend } from './cost-backend.ts';

const { values } = parseArgs({
  options: {
    messages: { type: 'string', default: '2000' },
    'in-flight': { type: 'string', default: '32' },
    backend: { type: 'string', default: 'sqlite' },
  },
});
const MESSAGES = Number(values.messages);
const IN_FLIGHT = Number(values['in-flight']);
const SECRET = 'bench-ingest-secret';
const STATUSES = ['SENT', 'DELIVERED', 'READ'] as const;
const MODES = [
  { name: 'no callback', statusCallback: undefined },
  { name: 'callback', statusCallback: 'http://127.0.0.1:9/callback' },
] as const;

const backend = await openCostBackend(values.backend);
const testApp = makeTestApp({ ...backend.appOptions, ingestSecrets: [SECRET] });
const account = await testApp.createAccount({ plan: 'sapphire' });
const accountRow = (await testApp.store.accounts.findByEmail(account.email))!;

/** Sends and hands over MESSAGES messages known upstream as `<set>-<i>`. */
async function seed(set: string, statusCallback: string | undefined): Promise<void> {
  for (let i = 0; i < MESSAGES; i += 1) {
    const number = `+1415${String(5_000_000 + i).padStart(7, '0')}`;
    const { body } = await sendMessage(testApp.deps, accountRow, { number, content: `bench ${i}`, statusCallback });
    await recordHandover(testApp.deps, body.message_handle, { transportHandle: `${set}-${i}` });
  }
}

async function postStatus(handle: string, status: string, webhookId: string): Promise<void> {
  const reply = await testApp.app.request('/webhooks/status', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'svc-signing-secret': SECRET, 'webhook-id': webhookId },
    body: JSON.stringify({ message_handle: handle, status, error_code: null, error_message: null, was_downgraded: false }),
  });
  if (reply.status !== 200) throw new Error(`status answered ${reply.status}: ${await reply.text()}`);
  await reply.arrayBuffer();
}

/** Status by status across the set's messages, IN_FLIGHT at a time; CPU µs per event. */
async function round(set: string) {
  const events = STATUSES.flatMap((status) => Array.from({ length: MESSAGES }, (_, i) => ({ handle: `${set}-${i}`, status })));
  let next = 0;
  const worker = async () => {
    while (next < events.length) {
      const event = events[next++]!;
      await postStatus(event.handle, event.status, `${set}-${event.handle}-${event.status}`);
    }
  };
  const start = cpuNow(backend);
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  return cpuPerOperation(backend, start, events.length);
}

const median = (figures: number[]) => [...figures].sort((a, b) => a - b)[Math.floor(figures.length / 2)]!;
const shown = ({ app, database }: { app: number; database: number }) =>
  backend.name === 'sqlite' ? `${app.toFixed(0)}` : `${app.toFixed(0)} + ${database.toFixed(0)} = ${(app + database).toFixed(0)}`;

const ROUNDS = 4;
for (const [m, mode] of MODES.entries()) {
  for (let r = 0; r < ROUNDS; r += 1) await seed(`m${m}r${r}`, mode.statusCallback);
}
for (const [m, mode] of MODES.entries()) {
  const figures = [];
  for (let r = 0; r < ROUNDS; r += 1) figures.push(await round(`m${m}r${r}`));
  const [first, ...measured] = figures;
  const middle = { app: median(measured.map((f) => f.app)), database: median(measured.map((f) => f.database)) };
  console.log(
    `${backend.name} ${mode.name}: ${shown(middle)} µs CPU per event (rounds ${measured.map(shown).join(', ')}; first ${shown(first!)})`,
  );
}

await testApp.close();
await backend.close();
