/**
 * The PostgreSQL floor of `npm run bench -- --backend postgres`: what the bench's PostgreSQL
 * commits at all through the servers' driver, pool size and in-flight count, measured in the same
 * run. One client process per serve instance (bench/postgres-floor-client.ts), on the servers' core,
 * writes transactions of three one-row inserts into tables of a schema of its own, dropped after.
 */
import postgres from 'postgres';
import { REPO_ROOT, spawnPinned, stopChild, waitForLine } from './processes.ts';
import { THREE_INSERT_TABLES } from './three-inserts.ts';
import { type Latencies, worstLatencies } from './wrk.ts';

export type PostgresFloor = {
  transactionsPerSecond: number;
  transactions: number;
  seconds: number;
  errors: number;
  /** The worse of the clients' percentiles, as for several wrk processes. */
  latencyMs: Latencies;
  clients: number;
  inFlightPerClient: number;
  poolSizePerClient: number;
  /** In cores over the measured seconds: the clients' own CPU, and PostgreSQL's. */
  clientCpu: number;
  databaseCpu: number;
};

/** Not a name textrelay's migrations use: dropping it leaves the seeded database as it was. */
const SCHEMA = 'bench_floor';

type ClientFigures = Pick<PostgresFloor, 'transactions' | 'seconds' | 'errors' | 'latencyMs'> & { cpuSeconds: number };

export async function measurePostgresFloor(options: {
  url: string;
  clients: number;
  inFlight: number;
  poolSize: number;
  warmupSeconds: number;
  seconds: number;
  cpu: number | undefined;
  databaseCpuSeconds: () => number;
}): Promise<PostgresFloor> {
  const admin = postgres(options.url, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create schema ${SCHEMA}; set search_path to ${SCHEMA}; ${THREE_INSERT_TABLES}`).simple();
  const inFlightPerClient = options.inFlight / options.clients;
  const children = Array.from({ length: options.clients }, (_, i) =>
    spawnPinned(options.cpu, process.execPath, ['--import', 'tsx', 'bench/postgres-floor-client.ts'], {
      cwd: REPO_ROOT,
      env: {
        ...process.env,
        BENCH_FLOOR_URL: options.url,
        BENCH_FLOOR_SCHEMA: SCHEMA,
        BENCH_FLOOR_POOL: String(options.poolSize),
        BENCH_FLOOR_IN_FLIGHT: String(inFlightPerClient),
        BENCH_FLOOR_SECONDS: String(options.seconds),
        BENCH_FLOOR_CLIENT: String(i),
      },
      stdio: ['pipe', 'pipe', 'inherit'],
    }),
  );
  try {
    await Promise.all(children.map((child) => waitForLine(child, /floor client running/)));
    await new Promise((resolve) => setTimeout(resolve, options.warmupSeconds * 1000));
    const reports = children.map((child) => waitForLine(child, /^FLOOR_JSON (.*)$/m));
    const databaseBefore = options.databaseCpuSeconds();
    for (const child of children) child.stdin!.write('go\n');
    const figures = (await Promise.all(reports)).map(([, json]) => JSON.parse(json!) as ClientFigures);
    const databaseSeconds = options.databaseCpuSeconds() - databaseBefore;
    const seconds = Math.max(...figures.map((figure) => figure.seconds));
    const transactions = figures.reduce((sum, figure) => sum + figure.transactions, 0);
    return {
      transactionsPerSecond: Math.round(transactions / seconds),
      transactions,
      seconds: Number(seconds.toFixed(2)),
      errors: figures.reduce((sum, figure) => sum + figure.errors, 0),
      latencyMs: worstLatencies(figures.map((figure) => figure.latencyMs)),
      clients: options.clients,
      inFlightPerClient,
      poolSizePerClient: options.poolSize,
      clientCpu: Number((figures.reduce((sum, figure) => sum + figure.cpuSeconds, 0) / seconds).toFixed(2)),
      databaseCpu: Number((databaseSeconds / seconds).toFixed(2)),
    };
  } finally {
    await Promise.all(children.map(stopChild));
    await admin.unsafe(`drop schema ${SCHEMA} cascade`);
    await admin.end();
  }
}
