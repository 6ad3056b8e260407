import type { ServiceDeps, TransportAtSend } from '../services/deps.ts';
import { type HandoverReceipt, type OutboundMessage, outboundOf } from '../services/handover.ts';
import { nextSandboxStepAt, planNewTimeline, planSandboxTimeline, runDueSandboxSteps } from '../services/sandbox.ts';
import { isOutage } from '../services/storage-errors.ts';
import type { Transport } from './transport.ts';

export type SandboxOptions = {
  /** TEXTRELAY_SANDBOX_STEP_MS: the pause between a message's simulated reports. */
  stepMs: number;
  /**
   * On a database other instances plan steps in too: how often the timer looks again for the
   * earliest step, so that the steps of an instance that died run. Off unless given.
   */
  pollMs?: number;
};

export type SandboxTransport = Transport & {
  /** Steps were planned (told after their commit): arms the timer for `dueAt` if that is sooner than it is armed for. */
  planned(dueAt: number): void;
  /** Applies every step due by `deps.clock` now; returns how many ran. Tests call it after advancing a fake clock. */
  runDue(): Promise<number>;
};

/** The sandbox's part in each send, which the runtime passes to the sandbox transport it starts. */
export type SandboxAtSend = TransportAtSend;

/**
 * The sandbox's part in each send: its network lives in this database, so the send plans the
 * simulated timeline in the transaction that stores it and is stored handed over (the courier's
 * round, a read and a second write of the message, would cost more than the planning itself).
 * The planning tells the notifier when its first step is due, which the transport's timer hears.
 */
export function createSandboxAtSend(options: SandboxOptions): SandboxAtSend {
  return {
    // The sandbox knows messages by our handle, as its send() answers.
    handleAtSend: (handle) => handle,
    async stored(deps, message) {
      // The sandbox keeps no group ids of its own: replies are tied to ours.
      await planNewTimeline(deps, outboundOf(message, null), options.stepMs);
    },
    committed() {},
  };
}

/** setTimeout fires at once for delays beyond a signed 32-bit int. */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** After a failed run (a busy database), wait this long before trying again rather than spin. */
const RETRY_AFTER_FAILURE_MS = 1_000;

/**
 * The simulated phone network (contract section 6). Its state is the planned steps in the
 * database, so only `deps.clock` decides what is due; once started, one timer is armed for the
 * earliest step: moved earlier when a commit planned a sooner one (`planned`), re-armed after every run.
 */
export function createSandboxTransport(deps: ServiceDeps, options: SandboxOptions): SandboxTransport {
  let started = false;
  let timer: NodeJS.Timeout | undefined;
  /** When the armed timer fires; undefined while none is armed. */
  let armedFor: number | undefined;
  let pollTimer: NodeJS.Timeout | undefined;

  /**
   * Arms the timer for `dueAt` unless it fires sooner already. A timer is only ever moved earlier:
   * a look at the database that raced a commit cannot push back the step that commit planned, and
   * one that fires early finds nothing due and arms for the earliest step.
   */
  function armFor(dueAt: number): void {
    if (!started || (armedFor !== undefined && armedFor <= dueAt)) return;
    clearTimeout(timer);
    armedFor = dueAt;
    timer = setTimeout(() => void runGuarded(), Math.min(Math.max(0, dueAt - deps.clock.now()), MAX_TIMER_MS));
    // The server's socket keeps the process alive; a pending step alone must not.
    timer.unref();
  }

  /** Arms for the earliest step the database holds (after a run, and when polling for other instances' steps). */
  async function armForEarliest(): Promise<void> {
    if (!started) return;
    const dueAt = await nextSandboxStepAt(deps);
    if (dueAt !== undefined) armFor(dueAt);
  }

  /** A run from a timer or from start(): its failure is logged and retried, never thrown at the caller. */
  async function runGuarded(): Promise<void> {
    timer = undefined;
    armedFor = undefined;
    try {
      await runDue();
    } catch (error) {
      if (!isOutage(error)) deps.log.error({ err: error }, 'sandbox steps failed, retrying');
      armFor(deps.clock.now() + RETRY_AFTER_FAILURE_MS);
    }
  }

  async function runDue(): Promise<number> {
    const ran = await runDueSandboxSteps(deps);
    await armForEarliest();
    return ran;
  }

  function poll(): void {
    armForEarliest().catch((error: unknown) => deps.log.error({ err: error }, 'sandbox could not read its next step'));
  }

  return {
    name: 'sandbox',
    async send(message: OutboundMessage): Promise<HandoverReceipt> {
      // In the shared write batch: a burst of sends is planned under one COMMIT, not one per message.
      // Its commit tells `planned` when the first step is due.
      await planSandboxTimeline(deps, message, options.stepMs, { batched: true });
      // The sandbox knows messages by our handle: that is its dedupe key and its handle.
      return { transportHandle: message.handle };
    },
    planned: armFor,
    start(): void {
      started = true;
      // Steps that fell due while the process was down run now; the rest wait for their time.
      void runGuarded();
      if (options.pollMs === undefined) return;
      pollTimer = setInterval(poll, options.pollMs);
      pollTimer.unref();
    },
    async stop(): Promise<void> {
      started = false;
      clearInterval(pollTimer);
      clearTimeout(timer);
      timer = undefined;
      armedFor = undefined;
    },
    runDue,
  };
}
