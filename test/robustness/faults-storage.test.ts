import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createCourier } from '../../src/transports/courier.ts';
import { createSandboxTransport } from '../../src/transports/sandbox.ts';
import type { Transport } from '../../src/transports/transport.ts';
import { type Receiver, startReceiver } from '../callbacks/receiver.ts';
import { makeTestApp } from '../helpers/app.ts';
import { expectCallbacksOnce } from '../helpers/callbacks.ts';
import { expectAccepted, expectMessageError } from '../helpers/expect.ts';
import { ALICE } from '../helpers/fixtures.ts';
import { type InProcessService, startInProcessService } from '../helpers/in-process-service.ts';
import { eventually } from '../helpers/live.ts';
import { STORAGE_FAULTS, type StorageFault } from './storage-faults.ts';

/**
 * The database stops taking writes while the service runs: it answers 503 in the documented shape
 * (never 500), /readyz says not ready, the workers ride it out, and once writes work again every
 * request that was acknowledged is there and every callback goes out.
 */

const INGEST_SECRET = 'ingest-secret-of-the-fault-tests';
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setUp(): Promise<{ service: InProcessService; receiver: Receiver; answerHeld: () => void }> {
  const dir = mkdtempSync(join(tmpdir(), 'textrelay-faults-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  // Holds its answers until told, so that attempts are in flight when the fault begins.
  const held: (() => void)[] = [];
  let holding = true;
  const receiver = await startReceiver((_request, _index, response) => {
    const answer = () => response.writeHead(200).end('ok');
    if (holding) held.push(answer);
    else answer();
  });
  cleanups.push(() => receiver.close());
  const service = await startInProcessService({
    TEXTRELAY_DB: join(dir, 'textrelay.db'),
    TEXTRELAY_SANDBOX_STEP_MS: '20',
    TEXTRELAY_INGEST_SECRET: INGEST_SECRET,
    TEXTRELAY_WEBHOOK_RETRY_SCHEDULE: Array.from({ length: 100 }, () => '0.2').join(','),
  });
  cleanups.push(() => service.stop());
  const answerHeld = () => {
    holding = false;
    for (const answer of held.splice(0)) answer();
  };
  return { service, receiver, answerHeld };
}

const sendBody = (receiver: Receiver, index: number) => ({
  number: `+1212555${index % 2 === 0 ? '0100' : '0105'}`,
  content: `message ${index}`,
  status_callback: receiver.url('/status'),
});

describe.each(STORAGE_FAULTS)('storage fault: $name', (fault: StorageFault) => {
  it('answers 503 (5003) instead of 500, is not ready, and after recovery has lost nothing it acknowledged', async () => {
    const { service, receiver, answerHeld } = await setUp();
    const acknowledged: string[] = [];
    const send = async (index: number) => {
      const reply = await service.call('POST', '/api/send-message', sendBody(receiver, index));
      if (reply.status === 202) acknowledged.push(reply.body.message_handle);
      return reply;
    };
    // Timelines and callbacks in flight when the fault begins.
    for (let index = 0; index < 4; index++) expect((await send(index)).status).toBe(202);
    await eventually('the QUEUED callbacks in flight', async () => (receiver.received.length >= 4 ? true : undefined));

    fault.break(service.db);
    // Their answers come back while nothing can be written.
    answerHeld();
    // A full disk refuses a write only once the free pages are used up: write until it does.
    let refused = await send(4);
    for (let index = 5; refused.status === 202 && index < 5_000; index++) refused = await send(index);
    expectMessageError(refused, 503, 5003, { nonEmpty: true });
    expect(refused.headers.get('retry-after')).toBe('1');

    const ready = await service.call('GET', '/readyz');
    expect(ready.status, JSON.stringify(ready.body)).toBe(503);
    expect((await service.call('GET', '/healthz')).status).toBe(200);
    // Reads still work.
    const read = await service.call('GET', `/api/status?handle=${acknowledged[0]}`);
    expect(read.status).toBe(200);
    // Every other writer answers 503 too (or, with free space left somewhere, succeeds), never 500.
    const contact = await service.call('POST', '/accounts/contacts', {
      firstName: 'Ada',
      lastName: 'Lovelace',
      number: '+14155550142',
    });
    expect([200, 503], JSON.stringify(contact.body)).toContain(contact.status);
    if (contact.status === 503) expect(contact.body).toEqual({ status: 'ERROR', message: expect.any(String) });
    const ingested = await service.call(
      'POST',
      '/webhooks/status',
      { message_handle: acknowledged[0], status: 'READ' },
      { 'svc-signing-secret': INGEST_SECRET },
    );
    expect([200, 503], JSON.stringify(ingested.body)).toContain(ingested.status);
    if (ingested.status === 503) expectMessageError(ingested, 503, 5003);
    if (fault.refusesEveryWrite) {
      expect(contact.status).toBe(503);
      expect(ingested.status).toBe(503);
    }

    // The courier, the sandbox's timer and the dispatcher meet the fault for a while, then it passes.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    fault.heal(service.db);
    await eventually('ready again', async () => ((await service.call('GET', '/readyz')).status === 200 ? true : undefined));
    expect((await send(10_000)).status).toBe(202);

    await eventually('every acknowledged message read and its callbacks delivered', async () => {
      for (const handle of acknowledged) {
        if ((await service.call('GET', `/api/status?handle=${handle}`)).body.status !== 'READ') return undefined;
      }
      const delivered = new Set(receiver.received.map((request) => `${request.json.message_handle} ${request.json.status}`));
      return acknowledged.every((handle) => ['QUEUED', 'SENT', 'DELIVERED', 'READ'].every((status) => delivered.has(`${handle} ${status}`)))
        ? true
        : undefined;
    });
    expectCallbacksOnce(receiver, acknowledged, ['QUEUED', 'SENT', 'DELIVERED', 'READ']);
  });
});

describe('storage fault: readiness follows the database', () => {
  it.each(STORAGE_FAULTS)('/readyz is 503 during $name and 200 after', async (fault) => {
    const { service } = await setUp();
    expect((await service.call('GET', '/readyz')).status).toBe(200);
    fault.break(service.db);
    expect(await service.call('GET', '/readyz')).toMatchObject({ status: 503, body: { status: 'ERROR' } });
    fault.heal(service.db);
    expect((await service.call('GET', '/readyz')).status).toBe(200);
  });
});

describe('storage fault: the courier', () => {
  it('keeps trying a message it could not hand over while the database is read-only, without failing it', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const sent = await t.call('POST', '/api/send-message', account, { number: ALICE, content: 'hello' });
    expectAccepted(sent);
    const handle: string = sent.body.message_handle;
    // The sandbox plans a message's timeline in the database: a read-only file refuses it.
    const sandbox = createSandboxTransport(t.deps, { stepMs: 1 });
    let attempts = 0;
    const transport: Transport = {
      ...sandbox,
      send: (message) => {
        attempts += 1;
        return sandbox.send(message);
      },
    };
    const readOnly = STORAGE_FAULTS.find((fault) => fault.refusesEveryWrite)!;
    readOnly.break(t.db);
    const courier = createCourier(t.deps, transport, { retryDelaysMs: [1, 1], concurrency: 1 });
    cleanups.push(() => courier.stop());

    courier.enqueue(handle);
    await eventually('more attempts than the retry schedule allows a failing transport', async () => (attempts > 3 ? true : undefined));
    readOnly.heal(t.db);
    await eventually('the hand-over', async () =>
      (await t.store.messages.findByAnyHandle(handle))?.handedOverAt != null ? true : undefined,
    );
    expect(await t.store.messages.findByAnyHandle(handle)).toMatchObject({ status: 'QUEUED', errorCode: null });
  });
});
