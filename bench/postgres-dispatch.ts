/**
 * Webhook dispatch on PostgreSQL, by the dispatchers of the real `textrelay serve` processes (one
 * or several on one database, claiming with leases): the outbox is filled while no server runs,
 * then the servers start and deliver it all to a receiver in its own process.
 */
import postgres from 'postgres';
import { loadConfig } from '../src/config.ts';
import { openPostgres } from '../src/db/postgres/connection.ts';
import { createPostgresStore } from '../src/db/postgres/store.ts';
import { createDeps } from '../src/deps.ts';
import { seed, startReceiver } from './dispatch.ts';
import { cpuSeconds, type ServerProcess } from './processes.ts';

export type PostgresDispatchMeasure = {
  messages: number;
  deliveries: number;
  delivered: number;
  failed: number;
  /** From the first completion to the last: the servers' start is not counted. */
  seconds: number;
  deliveriesPerSecond: number;
  /** CPU of the serve processes and of PostgreSQL while they delivered, in cores. */
  serverCpu: number;
  databaseCpu: number;
};

/** Senders filling the outbox at once: PostgreSQL commits each send and status change on its own. */
const SEEDING_WORKERS = 8;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until the outbox has nothing pending or being delivered (callbacks of the ingest scenarios), for at most a minute. */
export async function waitForOutboxDrained(url: string, log: (line: string) => void): Promise<void> {
  const client = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      const [row] = await client`select count(*)::int as left from webhook_deliveries where state in ('pending', 'delivering')`;
      if (row!.left === 0) return;
      await pause(250);
    }
    log('the outbox still has callbacks of the ingest scenarios after a minute: dispatch measured with them');
  } finally {
    await client.end();
  }
}

/** Seeds `messageCount` x 4 outbox rows through the services of this process, into the bench account. */
async function fillOutbox(url: string, callbackUrl: string, messageCount: number): Promise<void> {
  const { db, close } = await openPostgres(url, { poolSize: SEEDING_WORKERS });
  try {
    const config = loadConfig({ TEXTRELAY_DATABASE_URL: url, LOG_LEVEL: 'silent', TEXTRELAY_RATE_LIMIT_PER_MINUTE: '0' });
    const deps = createDeps(config, { store: createPostgresStore(db), isReady: () => true });
    const account = (await deps.store.accounts.findByEmail('bench@example.com'))!;
    const share = Math.ceil(messageCount / SEEDING_WORKERS);
    await Promise.all(
      Array.from({ length: SEEDING_WORKERS }, (_, worker) =>
        seed(deps, account, callbackUrl, Math.min(share, messageCount - worker * share), worker * share),
      ),
    );
  } finally {
    await close();
  }
}

/**
 * Fills the outbox with `messageCount` x 4 callbacks while no server runs, starts the servers
 * (`startServers`) and times them delivering it all to a receiver on core `receiverCpu`.
 */
export async function measurePostgresDispatch(options: {
  url: string;
  messageCount: number;
  startServers: () => Promise<ServerProcess[]>;
  databaseCpuSeconds: () => number;
  receiverCpu?: number;
}): Promise<PostgresDispatchMeasure> {
  const receiver = await startReceiver(options.receiverCpu);
  const client = postgres(options.url, { max: 1, onnotice: () => {} });
  try {
    const [{ last }] = (await client`select coalesce(max(seq), 0)::bigint as last from webhook_deliveries`) as unknown as [
      { last: string },
    ];
    await fillOutbox(options.url, receiver.url, options.messageCount);
    const servers = await options.startServers();
    const reading = () => ({
      server: servers.reduce((sum, server) => sum + cpuSeconds(server.pid), 0),
      database: options.databaseCpuSeconds(),
      at: Date.now(),
    });
    const before = reading();
    let after: ReturnType<typeof reading>;
    try {
      for (;;) {
        const [row] =
          await client`select exists (select 1 from webhook_deliveries where seq > ${last} and state in ('pending', 'delivering')) as left`;
        if (!row!.left) break;
        await pause(250);
      }
      after = reading();
    } finally {
      await Promise.all(servers.map((server) => server.stop()));
    }
    const wallSeconds = (after.at - before.at) / 1000;
    const [counts] = (await client`
      select count(*)::int as deliveries,
        (count(*) filter (where state = 'delivered'))::int as delivered,
        (count(*) filter (where state = 'failed'))::int as failed,
        min(completed_at)::bigint as first, max(completed_at)::bigint as final
      from webhook_deliveries where seq > ${last}`) as unknown as [
      { deliveries: number; delivered: number; failed: number; first: string; final: string },
    ];
    const seconds = (Number(counts.final) - Number(counts.first)) / 1000;
    return {
      messages: options.messageCount,
      deliveries: counts.deliveries,
      delivered: counts.delivered,
      failed: counts.failed,
      seconds: Number(seconds.toFixed(3)),
      deliveriesPerSecond: Math.round(counts.deliveries / seconds),
      serverCpu: Number(((after.server - before.server) / wallSeconds).toFixed(2)),
      databaseCpu: Number(((after.database - before.database) / wallSeconds).toFixed(2)),
    };
  } finally {
    await client.end();
    await receiver.stop().catch(() => 0);
  }
}
