import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { closeDatabase } from '../../src/db/sqlite/connection.ts';
import { messagesAwaitingHandover } from '../../src/services/handover.ts';
import { createSandboxTransport } from '../../src/transports/sandbox.ts';
import { makeTestApp } from '../helpers/app.ts';
import { CALLBACK_URL, send } from '../helpers/delivery.ts';
import { callbackStatuses } from '../helpers/outbox.ts';
import { makeSandboxApp, plannedStepCount, STEP_MS } from './harness.ts';

const folders: string[] = [];
const databases: { db: Parameters<typeof closeDatabase>[0] }[] = [];

/** A database file in a fresh temporary folder, removed after the test. */
function databaseFile(): string {
  const folder = mkdtempSync(join(tmpdir(), 'textrelay-sandbox-'));
  folders.push(folder);
  return join(folder, 'textrelay.db');
}

/** `makeSandboxApp` on `file`, its clock at `now`: the process after a restart. */
function processOn(file: string, now?: number) {
  const t = makeSandboxApp({ database: file });
  databases.push(t);
  if (now !== undefined) t.clock.set(now);
  return t;
}

afterEach(() => {
  for (const { db } of databases.splice(0)) closeDatabase(db);
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

describe('sandbox state survives a restart', () => {
  it('a timeline interrupted after SENT resumes from the database and finishes, each step once', async () => {
    const file = databaseFile();
    const before = processOn(file);
    const account = await before.createAccount();
    const sent = await before.sendVia('/api/send-message', account, {
      number: '+12125558899',
      content: 'x',
      status_callback: CALLBACK_URL,
    });
    await before.steps();
    expect((await before.statusOf(account, sent.message_handle)).status).toBe('SENT');
    await before.transport.stop();
    closeDatabase(before.db);

    const after = processOn(file, before.clock.now());
    expect(await plannedStepCount(after)).toBe(2);
    await after.steps();
    expect((await after.statusOf(account, sent.message_handle)).status).toBe('DELIVERED');
    await after.steps();
    expect((await after.statusOf(account, sent.message_handle)).status).toBe('READ');
    expect(await callbackStatuses(after, sent.message_handle)).toEqual(['QUEUED', 'SENT', 'DELIVERED', 'READ']);
    expect(await plannedStepCount(after)).toBe(0);
  });

  it('start() applies at once every step that fell due while the process was down', async () => {
    const file = databaseFile();
    const before = processOn(file);
    const account = await before.createAccount();
    const sent = await before.sendVia('/api/send-message', account, {
      number: '+12125550104',
      content: 'x',
      status_callback: CALLBACK_URL,
    });
    closeDatabase(before.db);

    const after = processOn(file, before.clock.now() + 10 * STEP_MS);
    after.transport.start();
    await after.transport.stop();
    expect(await after.statusOf(account, sent.message_handle)).toMatchObject({ status: 'ERROR', error_code: 10002 });
    expect(await callbackStatuses(after, sent.message_handle)).toEqual(['QUEUED', 'SENT', 'ERROR']);
    expect(await plannedStepCount(after)).toBe(0);
  });

  it('a send stored but never handed over is handed over on resume and runs its timeline', async () => {
    const file = databaseFile();
    // A process of an earlier version, whose sends waited QUEUED for the courier, stores one and stops before it was carried.
    const crashed = makeTestApp({ database: file });
    const account = await crashed.createAccount();
    const handle = (await send(crashed, account, { number: '+12125558899' })).message_handle;
    closeDatabase(crashed.db);

    const after = processOn(file, crashed.clock.now());
    await after.courier.resume();
    await after.courier.idle();
    expect(await plannedStepCount(after)).toBe(3);
    await after.steps(3);
    expect(await callbackStatuses(after, handle)).toEqual(['QUEUED', 'SENT', 'DELIVERED', 'READ']);
  });
});

describe('the sandbox dedupes by our handle', () => {
  it('handing the same message over twice plans it once; after its first step, not at all', async () => {
    const t = makeTestApp();
    const transport = createSandboxTransport(t.deps, { stepMs: STEP_MS });
    const account = await t.createAccount();
    const handle = (await send(t, account, { number: '+12125558899' })).message_handle;
    const [message] = (await messagesAwaitingHandover(t.deps, 10)).messages;
    expect(message?.handle).toBe(handle);

    expect(await transport.send(message!)).toEqual({ transportHandle: handle });
    expect(await transport.send(message!)).toEqual({ transportHandle: handle });
    expect(await plannedStepCount(t)).toBe(3);

    t.clock.advance(STEP_MS);
    expect(await transport.runDue()).toBe(1);
    // Handed over again after its SENT was applied (a crash before the hand-over was recorded): nothing replays.
    await transport.send(message!);
    expect(await plannedStepCount(t)).toBe(2);

    t.clock.advance(5 * STEP_MS);
    expect(await transport.runDue()).toBe(2);
    expect(await callbackStatuses(t, handle)).toEqual(['QUEUED', 'SENT', 'DELIVERED', 'READ']);
  });
});
