/**
 * Server CPU per listing request, in-process: the real app (`app.request`, no sockets) on a copy
 * of the database `npm run bench` seeds, the same requests as its listing scenarios, N in flight.
 * Measures CPU time (user + system) of this process, so the load from other work on the machine
 * does not count, and the in-process latency of each request. Two rounds per scenario, the second
 * reported (the first warms the JIT and the page cache).
 *
 *   npx tsx bench/listing-cost.ts --database FILE [--backend postgres] [--requests 2000] [--in-flight 4] [--only v1|v2] [--by-filter]
 *
 * FILE is a seeded database (`$TMPDIR/textrelay-bench-cache/seed-*.db`, its `.json` beside it
 * holds the account's credentials); it is copied first, as the server migrates what it opens.
 * With `--backend postgres` the requests run on a copy of the PostgreSQL seeded from FILE (the
 * cache `npm run bench -- --backend postgres` keeps, built here when missing), and the CPU of
 * PostgreSQL's processes is counted beside this process's.
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openPostgres } from '../src/db/postgres/connection.ts';
import { makeTestApp } from '../test/helpers/app.ts';
import { listingPaths } from './listing-paths.ts';
import { seedPostgres, startBenchPostgres } from './postgres.ts';
import type { SeededAccount } from './seed.ts';

const { values } = parseArgs({
  options: {
    database: { type: 'string' },
    backend: { type: 'string', default: 'sqlite' },
    requests: { type: 'string', default: '2000' },
    'in-flight': { type: 'string', default: '4' },
    only: { type: 'string' },
    'by-filter': { type: 'boolean', default: false },
  },
});
if (values.database === undefined) throw new Error('--database FILE: a database seeded by npm run bench');
const REQUESTS = Number(values.requests);
const IN_FLIGHT = Number(values['in-flight']);
const BATCH = 60;

if (values.backend !== 'sqlite' && values.backend !== 'postgres')
  throw new Error(`--backend is sqlite or postgres (got ${values.backend})`);

const seeded = JSON.parse(readFileSync(`${values.database}.json`, 'utf8')) as SeededAccount;
const dir = mkdtempSync(join(tmpdir(), 'textrelay-listing-cost-'));

/** The app on a copy of the seeded database, and the CPU seconds its database server has used (0 for SQLite, in this process). */
async function openSeeded() {
  if (values.backend === 'sqlite') {
    const file = join(dir, 'bench.db');
    copyFileSync(values.database!, file);
    return { testApp: makeTestApp({ database: file }), databaseCpuSeconds: () => 0, close: async () => {} };
  }
  const data = await seedPostgres(values.database!, seeded, { log: (line) => console.log(line) });
  const server = await startBenchPostgres(data.dir);
  const connection = await openPostgres(server.url);
  return {
    testApp: makeTestApp({ postgresPool: connection.db }),
    databaseCpuSeconds: server.cpuSeconds,
    close: async () => {
      await connection.close();
      await server.stop();
      data.remove();
    },
  };
}

const { testApp, databaseCpuSeconds, close } = await openSeeded();
const account = { headers: { 'svc-api-key-id': seeded.apiKeyId, 'svc-api-secret-key': seeded.apiSecret } };

async function round(paths: string[]) {
  const latencies: number[] = [];
  const cpuStart = process.cpuUsage();
  const databaseStart = databaseCpuSeconds();
  let started = 0;
  // CPU per batch of requests: the cheapest batch is the least disturbed by other work on the machine.
  let batchStart = process.cpuUsage();
  let cheapestBatch = Number.POSITIVE_INFINITY;
  const worker = async () => {
    while (started < REQUESTS) {
      if (started % BATCH === 0 && started > 0) {
        const { user, system } = process.cpuUsage(batchStart);
        cheapestBatch = Math.min(cheapestBatch, (user + system) / BATCH);
        batchStart = process.cpuUsage();
      }
      const path = paths[started % paths.length]!;
      started += 1;
      const begun = performance.now();
      const reply = await testApp.app.request(path, { headers: account.headers });
      const body = await reply.text();
      latencies.push(performance.now() - begun);
      if (reply.status !== 200) throw new Error(`${path} answered ${reply.status}: ${body}`);
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  const { user, system } = process.cpuUsage(cpuStart);
  const database = ((databaseCpuSeconds() - databaseStart) * 1e6) / REQUESTS;
  latencies.sort((a, b) => a - b);
  const at = (share: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * share))]!.toFixed(2);
  const app = (user + system) / REQUESTS;
  const cpu =
    values.backend === 'sqlite'
      ? `${app.toFixed(0)} µs CPU per request`
      : `${(app + database).toFixed(0)} µs CPU per request (textrelay ${app.toFixed(0)} + PostgreSQL ${database.toFixed(0)})`;
  return `${cpu} (textrelay's cheapest batch of ${BATCH}: ${cheapestBatch.toFixed(0)}), p50 ${at(0.5)} ms, p99 ${at(0.99)} ms`;
}

const v1 = listingPaths(seeded);
/** The v1 scenario's filters one by one (its paths cycle through six kinds of filter). */
const byFilter = Object.fromEntries(
  ['number', 'cid', 'group_id', 'status', 'number+from_date', 'is_outbound'].map((name, i) => [
    `v1 ${name}`,
    v1.filter((_, j) => j % 6 === i),
  ]),
);
const scenarios: Record<string, string[]> = { v1, v2: ['/api/v2/messages?limit=50'], ...(values['by-filter'] ? byFilter : {}) };
for (const [name, paths] of Object.entries(scenarios)) {
  if (values.only !== undefined && !name.startsWith(values.only)) continue;
  const first = await round(paths);
  const second = await round(paths);
  console.log(`${name} listing, ${IN_FLIGHT} in flight: ${second} (first round ${first})`);
}

await testApp.close();
await close();
rmSync(dir, { recursive: true, force: true });
