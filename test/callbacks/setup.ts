import { createDispatcher } from '../../src/callbacks/dispatcher.ts';
import type { DispatcherOptions } from '../../src/callbacks/dispatcher-options.ts';
import type { MessageStatus } from '../../src/domain/status.ts';
import { recordStatus } from '../../src/services/record-status.ts';
import { makeTestApp, type TestAccount, type TestApp } from '../helpers/app.ts';
import { onCleanup } from '../helpers/cleanups.ts';
import { expectAccepted } from '../helpers/expect.ts';
import { ALICE, LOOPBACK_ALLOWED } from '../helpers/fixtures.ts';
import { type Answer, type Receiver, startReceiver } from './receiver.ts';

/** Short pauses so the schedule is easy to step through with the fake clock. */
export const TEST_SCHEDULE_MS = [5_000, 30_000, 120_000];

export { onCleanup } from '../helpers/cleanups.ts';

export async function receiver(answer?: Answer): Promise<Receiver> {
  const started = await startReceiver(answer);
  onCleanup(() => started.close());
  return started;
}

/** A dispatcher on the test app's deps, with the test schedule, no jitter (random 0.5) and loopback receivers allowed. */
export function dispatcherFor(t: TestApp, options: Partial<DispatcherOptions> = {}) {
  const dispatcher = createDispatcher(t.deps, {
    retryScheduleMs: TEST_SCHEDULE_MS,
    outboundPolicy: LOOPBACK_ALLOWED,
    random: () => 0.5,
    ...options,
  });
  onCleanup(() => dispatcher.stop());
  return dispatcher;
}

/** Sends a message with a status_callback through the API: its QUEUED callback lands in the outbox. */
export async function sendWithCallback(t: TestApp, account: TestAccount, callback: string, number = ALICE): Promise<string> {
  const reply = await t.call('POST', '/api/send-message', account, { number, content: 'hello', status_callback: callback });
  expectAccepted(reply);
  return reply.body.message_handle as string;
}

/** The transport reports a status, as the sandbox or the upstream would. */
export async function report(t: TestApp, handle: string, status: MessageStatus): Promise<void> {
  await recordStatus(t.deps, { handle, status, source: 'sandbox' });
}

/** A test app with one account, whose webhook secret the test can read. */
export async function appWithAccount(overrides: Parameters<typeof makeTestApp>[0] = {}) {
  const t = makeTestApp(overrides);
  onCleanup(() => t.close());
  const account = await t.createAccount();
  return { t, account };
}
