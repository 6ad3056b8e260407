import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { openPostgres, type PgPool } from '../../../src/db/postgres/connection.ts';
import { postgresChannel } from '../../../src/db/postgres/notifications.ts';
import { createNotifierHub } from '../../../src/services/notifier.ts';
import { createNotifierBridge } from '../../../src/services/notifier-bridge.ts';
import { freshPostgresDatabase } from '../../helpers/postgres-database.ts';

const log = pino({ level: 'silent' });
const closers: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** One instance: a pool of its own on the database, its hub, and the hub bridged over LISTEN/NOTIFY. */
async function instance(pool: PgPool) {
  const hub = createNotifierHub();
  const heard = { outboxWritten: 0, activity: [] as string[] };
  hub.subscribe({ outboxWritten: () => heard.outboxWritten++ });
  hub.watchAccount('acc_1', { activity: () => heard.activity.push('acc_1'), end: () => {} });
  const channel = postgresChannel(pool.$client);
  const listening = await channel.listen(createNotifierBridge(hub, channel, log));
  closers.push(() => listening.close());
  return { hub, heard };
}

/** Two instances on one fresh database, each with its own pool (and so its own LISTEN connection). */
async function twoInstances(): Promise<[Awaited<ReturnType<typeof instance>>, Awaited<ReturnType<typeof instance>>]> {
  const database = await freshPostgresDatabase();
  const other = await openPostgres(database.url, { poolSize: 2 });
  closers.push(database.close, other.close);
  return [await instance(database.db), await instance(other.db)];
}

async function until(what: string, done: () => boolean): Promise<void> {
  for (const started = Date.now(); !done(); await new Promise((resolve) => setTimeout(resolve, 10))) {
    if (Date.now() - started > 5_000) throw new Error(`timed out waiting for ${what}`);
  }
}

/** Long enough for a NOTIFY to arrive, had one been sent. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 200));

describe('the notifier bridge over LISTEN/NOTIFY', () => {
  it("wakes the other instance's dispatcher and live views, and this one's only once", async () => {
    const [a, b] = await twoInstances();
    a.hub.outboxWritten();
    a.hub.accountActivity('acc_1');
    a.hub.accountActivity('acc_2');
    await until('instance B to hear A', () => b.heard.outboxWritten === 1 && b.heard.activity.length === 1);
    await settle();
    expect(b.heard).toEqual({ outboxWritten: 1, activity: ['acc_1'] });
    // A heard its own events directly, and ignored their echo.
    expect(a.heard).toEqual({ outboxWritten: 1, activity: ['acc_1'] });
  });

  it('sends a burst of events as one notification', async () => {
    const [a, b] = await twoInstances();
    for (let i = 0; i < 50; i++) a.hub.outboxWritten();
    await until('instance B to hear A', () => b.heard.outboxWritten > 0);
    await settle();
    expect(b.heard.outboxWritten).toBe(1);
  });

  it('spreads many accounts over notifications PostgreSQL accepts', async () => {
    const [a, b] = await twoInstances();
    const accounts = Array.from({ length: 2_000 }, (_, i) => `acc_${String(i).padStart(20, '0')}`);
    const last = accounts.at(-1)!;
    let heardLast = false;
    b.hub.watchAccount(last, { activity: () => (heardLast = true), end: () => {} });
    for (const accountId of accounts) a.hub.accountActivity(accountId);
    await until('instance B to hear the last account', () => heardLast);
  });

  it('listens again after its connection is cut, and catches up then', async () => {
    const database = await freshPostgresDatabase();
    const other = await openPostgres(database.url, { poolSize: 2 });
    closers.push(database.close, other.close);
    const a = await instance(database.db);
    const b = await instance(other.db);
    await database.db.$client`select pg_terminate_backend(pid) from pg_stat_activity
      where datname = current_database() and query ilike 'listen%' and pid <> pg_backend_pid()`;
    // Reconnected, each catches up (a wake, a refresh of acc_1), then hears the other again.
    await until('both to reconnect', () => a.heard.outboxWritten === 1 && b.heard.outboxWritten === 1);
    a.hub.accountActivity('acc_1');
    await until('instance B to hear A again', () => b.heard.activity.length === 2);
  }, 30_000);

  it('catches up after a reconnection: every dispatcher wakes and every live view refreshes', async () => {
    const hub = createNotifierHub();
    const heard: string[] = [];
    hub.subscribe({ outboxWritten: () => heard.push('outbox') });
    hub.watchAccount('acc_9', { activity: () => heard.push('acc_9'), end: () => {} });
    createNotifierBridge(hub, { publish: async () => {} }, log).connected();
    expect(heard).toEqual(['outbox', 'acc_9']);
  });
});
