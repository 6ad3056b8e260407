import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/app.ts';
import { createDispatcher } from '../../../src/callbacks/dispatcher.ts';
import { DISPATCHER_DEFAULTS } from '../../../src/callbacks/dispatcher-options.ts';
import { loadConfig } from '../../../src/config.ts';
import { openPostgres, type PgPool } from '../../../src/db/postgres/connection.ts';
import { createPostgresStore } from '../../../src/db/postgres/store.ts';
import { createDeps } from '../../../src/deps.ts';
import { createAccount } from '../../../src/services/accounts.ts';
import { type Clock, systemClock } from '../../../src/services/clock.ts';
import type { TransportAtSend } from '../../../src/services/deps.ts';
import type { OutboundMessage } from '../../../src/services/handover.ts';
import { createCourier } from '../../../src/transports/courier.ts';
import { createSandboxAtSend, createSandboxTransport } from '../../../src/transports/sandbox.ts';
import { startReceiver } from '../../callbacks/receiver.ts';
import { FakeClock } from '../../helpers/clock.ts';
import { ALICE, LOOPBACK_ALLOWED } from '../../helpers/fixtures.ts';
import { jsonRequest, readReply } from '../../helpers/http.ts';
import { claimDue } from '../../helpers/outbox.ts';
import { freshPostgresDatabase } from '../../helpers/postgres-database.ts';

/**
 * Work that one instance wrote, or claimed and then died holding, done by another instance on the
 * same PostgreSQL database: two pools stand for the two processes.
 */

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const config = { ...loadConfig({}), TEXTRELAY_RATE_LIMIT_PER_MINUTE: 0, TEXTRELAY_ALLOW_PRIVATE_CALLBACKS: true };

function instance(db: PgPool, clock: Clock, transportAtSend?: TransportAtSend) {
  return createDeps(config, {
    store: createPostgresStore(db),
    isReady: () => true,
    clock,
    log: pino({ level: 'silent' }),
    transportAtSend,
  });
}

async function twoPools(): Promise<[PgPool, PgPool]> {
  const database = await freshPostgresDatabase();
  const other = await openPostgres(database.url, { poolSize: 2 });
  cleanups.push(database.close, other.close);
  return [database.db, other.db];
}

/** Sends one message through `deps`'s API, with a status callback to `callback` if given; answers its handle. */
async function send(deps: ReturnType<typeof instance>, callback?: string): Promise<string> {
  const account = await createAccount(deps, { email: `${Math.random()}@example.com`, plan: 'sapphire' });
  const credentials = { 'svc-api-key-id': account.api_key_id, 'svc-api-secret-key': account.api_secret_key };
  const body = { number: ALICE, content: 'hello', ...(callback ? { status_callback: callback } : {}) };
  const reply = await readReply(await buildApp(deps).request('/api/send-message', jsonRequest('POST', credentials, body)));
  expect(reply.status).toBe(202);
  return (reply.body as { message_handle: string }).message_handle;
}

async function until<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, timeoutMs = 5_000): Promise<T> {
  for (const started = Date.now(); ; await new Promise((resolve) => setTimeout(resolve, 20))) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
  }
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('work another instance left', () => {
  it('delivers a callback claimed by an instance that died once its lease lapses, within 30 s', async () => {
    expect(DISPATCHER_DEFAULTS.leaseMs + DISPATCHER_DEFAULTS.pollIntervalMs).toBeLessThanOrEqual(30_000);
    expect(DISPATCHER_DEFAULTS.leaseMs).toBeGreaterThan(DISPATCHER_DEFAULTS.timeoutMs);
    const clock = new FakeClock();
    const [poolA, poolB] = await twoPools();
    const [a, b] = [instance(poolA, clock), instance(poolB, clock)];
    const receiver = await startReceiver();
    cleanups.push(receiver.close);
    await send(a, receiver.url());
    // Instance A claims the callback with the default lease, and is killed before posting it.
    expect(await claimDue(a, 10, { leaseMs: DISPATCHER_DEFAULTS.leaseMs })).toHaveLength(1);

    const dispatcher = createDispatcher(b, { retryScheduleMs: [5_000], outboundPolicy: LOOPBACK_ALLOWED, random: () => 0.5 });
    cleanups.push(() => dispatcher.stop());
    dispatcher.start();
    await pause(1_500);
    expect(receiver.received).toHaveLength(0);

    clock.advance(DISPATCHER_DEFAULTS.leaseMs);
    // B's next poll finds the lease lapsed.
    const [delivered] = await until('instance B to deliver it', () => receiver.received[0] && receiver.received, 3_000);
    expect(delivered!.json).toMatchObject({ status: 'QUEUED' });
  });

  it('hands over a message another instance left QUEUED, and not again while its own retry waits', async () => {
    const [poolA, poolB] = await twoPools();
    const b = instance(poolB, systemClock);
    const sent: string[] = [];
    const transport = {
      name: 'upstream' as const,
      async send(message: OutboundMessage) {
        sent.push(message.handle);
        // The network fails the first attempt: the courier waits to retry.
        if (sent.length === 1) throw new Error('connection reset');
        return { transportHandle: `t-${message.handle}` };
      },
      start() {},
      async stop() {},
    };
    const courier = createCourier(b, transport, { retryDelaysMs: [500], concurrency: 4 });
    cleanups.push(() => courier.stop());
    await courier.resume();

    // Instance A stored it after B started, and died before its courier handed it over.
    const handle = await send(instance(poolA, systemClock));
    courier.rescan();
    await until('instance B to try it', () => sent[0]);
    await pause(50);
    courier.rescan();
    await pause(200);
    expect(sent).toEqual([handle]);
    await until('the retry to be recorded', async () => (await b.store.messages.findByAnyHandle(handle))?.handedOverAt ?? undefined);
    expect(sent).toEqual([handle, handle]);
  });

  it('runs the sandbox steps another instance planned, when the sandbox polls', async () => {
    const [poolA, poolB] = await twoPools();
    const stepMs = 50;
    const b = instance(poolB, systemClock, createSandboxAtSend({ stepMs }));
    const sandbox = createSandboxTransport(b, { stepMs, pollMs: 200 });
    cleanups.push(() => sandbox.stop());
    sandbox.start();

    // Instance A planned the timeline at its send and died: no timer of its own runs the steps.
    const handle = await send(instance(poolA, systemClock, createSandboxAtSend({ stepMs })));
    await until(
      'instance B to run the timeline',
      async () => ((await b.store.sandbox.earliestDueAt()) === undefined ? true : undefined),
      5_000,
    );
    expect((await b.store.messages.findByAnyHandle(handle))?.status).not.toBe('QUEUED');
  });
});
