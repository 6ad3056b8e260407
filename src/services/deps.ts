import type { Logger } from 'pino';
import type { Clock } from './clock.ts';
import type { Store } from '../db/store.ts';
import type { GroupCommit } from './group-commit.ts';
import type { RateLimiter } from './rate-limiter.ts';

/**
 * Told after a commit that something is waiting for work outside the request. Implementations
 * must not do that work synchronously: the caller may still be inside an outer transaction.
 */
export interface Notifier {
  /** An outbound message was stored QUEUED and awaits its hand-over to the transport. */
  messageQueued(handle: string): void;
  /** New rows are due in the webhook outbox. */
  outboxWritten(): void;
  /** Sends planned steps of the sandbox network in their own transaction (`sandboxInline`): its timer may need to fire sooner. */
  sandboxPlanned?(): void;
  /**
   * Something in this account's conversations changed (a message, a status event): live views
   * refresh. May come from inside a transaction that later rolls back, which costs a needless refresh.
   */
  accountActivity?(accountId: string): void;
}

export const silentNotifier: Notifier = { messageQueued: () => {}, outboxWritten: () => {} };

/** What every use case may reach. Built once by the entry point (or a test) and passed down. */
export type ServiceDeps = {
  store: Store;
  /**
   * The one write batch that requests (sends, transport callbacks) and background writers (the
   * courier, the sandbox) share under load: each COMMIT covers all of them.
   */
  groupCommit: GroupCommit;
  clock: Clock;
  log: Logger;
  sendRateLimiter: RateLimiter;
  notify: Notifier;
  /** Time zone of contacts' displayDate. */
  displayTimeZone: string;
  /** Service numbers given to an account created without an explicit count. */
  defaultNumbersPerAccount: number;
  /**
   * Set when the transport is the sandbox: its network lives in this database, so a send plans its
   * simulated timeline in the transaction that stores it and is handed over from the start. The
   * courier's round (a read, a second write of the message, two more batch items) cost about a tenth
   * of a send's server CPU. Unset, sends wait QUEUED for the courier, as they do for the upstream.
   */
  sandboxInline?: { stepMs: number };
};
