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
  /** Sends planned steps themselves (`createSandboxAtSend`): re-arms the timer if one of them falls due sooner. */
  planned(): void;
  /** Applies every step due by `deps.clock` now; returns how many ran. Tests call it after advancing a fake clock. */
  runDue(): Promise<number>;
};

export type SandboxAtSend = TransportAtSend & {
  /** `listener` (the sandbox transport's `planned`) is told after each committed send that planned steps. */
  onPlanned(listener: () => void): void;
};

/**
 * The sandbox's part in each send: its network lives in this database, so the send plans the
 * simulated timeline in the transaction that stores it and is stored handed over (the courier's
 * round, a read and a second write of the message, would cost more than the planning itself).
 */
export function createSandboxAtSend(options: SandboxOptions): SandboxAtSend {
  const listeners: (() => void)[] = [];
  return {
    // The sandbox knows messages by our handle, as its send() answers.
    handleAtSend: (handle) => handle,
    async stored(deps, message) {
      // The sandbox keeps no group ids of its own: replies are tied to ours.
      await planNewTimeline(deps, outboundOf(message, null), options.stepMs);
    },
    committed() {
      for (const listener of listeners) listener();
    },
    onPlanned(listener) {
      listeners.push(listener);
    },
  };
}

/** setTimeout fires at once for delays beyond a signed 32-bit int. */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** After a failed run (a busy database), wait this long before trying again rather than spin. */
const RETRY_AFTER_FAILURE_MS = 1_000;

/**
 * The simulated phone network (contract section 6). Its state is the planned steps in the
 * database, so only `deps.clock` decides what is due; once started, one timer is armed for the
 * earliest step and re-armed after every send and every run.
 */
export function createSandboxTransport(deps: ServiceDeps, options: SandboxOptions): SandboxTransport {
  let started = false;
  let timer: NodeJS.Timeout | undefined;
  let pollTimer: NodeJS.Timeout | undefined;
  let rearmQueued = false;

  async function arm(delayMs?: number): Promise<void> {
    if (!started) return;
    const dueAt = await nextSandboxStepAt(deps);
    if (!started) return;
    clearTimeout(timer);
    timer = undefined;
    if (dueAt === undefined && delayMs === undefined) return;
    const delay = delayMs ?? Math.max(0, (dueAt ?? 0) - deps.clock.now());
    timer = setTimeout(() => void runGuarded(), Math.min(delay, MAX_TIMER_MS));
    // The server's socket keeps the process alive; a pending step alone must not.
    timer.unref();
  }

  /** A run from a timer or from start(): its failure is logged and retried, never thrown at the caller. */
  async function runGuarded(): Promise<void> {
    timer = undefined;
    try {
      await runDue();
    } catch (error) {
      if (!isOutage(error)) deps.log.error({ err: error }, 'sandbox steps failed, retrying');
      await arm(RETRY_AFTER_FAILURE_MS).catch(() => {});
    }
  }

  async function runDue(): Promise<number> {
    const ran = await runDueSandboxSteps(deps);
    await arm();
    return ran;
  }

  function planned(): void {
    // A group commit answers a burst of sends together: one look at the earliest step serves them all.
    if (rearmQueued) return;
    rearmQueued = true;
    queueMicrotask(async () => {
      rearmQueued = false;
      await arm().catch((error: unknown) => deps.log.error({ err: error }, 'sandbox could not read its next step'));
    });
  }

  return {
    name: 'sandbox',
    async send(message: OutboundMessage): Promise<HandoverReceipt> {
      // In the shared write batch: a burst of sends is planned under one COMMIT, not one per message.
      await planSandboxTimeline(deps, message, options.stepMs, { batched: true });
      await arm();
      // The sandbox knows messages by our handle: that is its dedupe key and its handle.
      return { transportHandle: message.handle };
    },
    planned,
    start(): void {
      started = true;
      // Steps that fell due while the process was down run now; the rest wait for their time.
      void runGuarded();
      if (options.pollMs === undefined) return;
      pollTimer = setInterval(planned, options.pollMs);
      pollTimer.unref();
    },
    async stop(): Promise<void> {
      started = false;
      clearInterval(pollTimer);
      clearTimeout(timer);
      timer = undefined;
    },
    runDue,
  };
}
