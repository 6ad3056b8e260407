/** A test app with the sandbox network carrying its sends, driven by the fake clock. */
import { count } from 'drizzle-orm';
import { expect } from 'vitest';
import { sandboxSteps as pgSandboxSteps } from '../../src/db/postgres/schema.ts';
import { sandboxSteps } from '../../src/db/schema.ts';
import { createCourier } from '../../src/transports/courier.ts';
import { createSandboxAtSend, createSandboxTransport } from '../../src/transports/sandbox.ts';
import { makeTestApp, type TestAccount, type TestApp } from '../helpers/app.ts';
import { expectAccepted } from '../helpers/expect.ts';
import { show } from '../helpers/fixtures.ts';

/** TEXTRELAY_SANDBOX_STEP_MS in these tests. */
export const STEP_MS = 1_000;

/**
 * `makeTestApp` plus the sandbox transport wired as the server wires it: sends plan their timeline
 * as they are stored (`inline`, the default), or wait QUEUED for the courier to hand them over
 * (`inline: false`, as messages stored by an earlier version do). Nothing runs until the test
 * advances the clock and calls `steps()`.
 */
export function makeSandboxApp(options: Parameters<typeof makeTestApp>[0] & { stepMs?: number; inline?: boolean } = {}) {
  const { stepMs = STEP_MS, inline = true, ...overrides } = options;
  const sandboxAtSend = createSandboxAtSend({ stepMs });
  const t = makeTestApp({ ...overrides, ...(inline ? { transportAtSend: sandboxAtSend } : {}) });
  const transport = createSandboxTransport(t.deps, { stepMs });
  const courier = createCourier(t.deps, transport, { retryDelaysMs: [], concurrency: 4 });
  t.notifier.subscribe({ messageQueued: courier.enqueue, sandboxPlanned: transport.planned });

  /** POSTs a send and waits until it is handed to the network; answers the 202 body. */
  async function sendVia(path: '/api/send-message' | '/api/send-group-message', account: TestAccount, body: unknown) {
    const reply = await t.call('POST', path, account, body);
    expectAccepted(reply);
    await courier.idle();
    return reply.body;
  }

  /** Moves the clock `count` steps on and runs what fell due; answers how many steps ran. */
  async function steps(count = 1): Promise<number> {
    t.clock.advance(count * stepMs);
    return await transport.runDue();
  }

  /** GET /api/status with the history. */
  async function statusOf(account: TestAccount, handle: string) {
    const reply = await t.call('GET', `/api/status?handle=${handle}&history=1`, account);
    expect(reply.status, show(reply.body)).toBe(200);
    return reply.body;
  }

  return { ...t, transport, courier, sendVia, steps, statusOf };
}

export type SandboxApp = ReturnType<typeof makeSandboxApp>;

/** How many steps the network still has planned, all messages together. */
export async function plannedStepCount(t: TestApp): Promise<number> {
  if (t.postgres !== undefined) return await (await t.postgres).$count(pgSandboxSteps);
  return t.db.select({ total: count() }).from(sandboxSteps).get()?.total ?? 0;
}
