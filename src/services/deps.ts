import type { Logger } from 'pino';
import type { Store } from '../db/store.ts';
import type { GroupCommit } from './group-commit.ts';
import type { RateLimiter } from './rate-limiter.ts';

export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/**
 * Told after a commit that something is waiting for work outside the request. Implementations
 * must not do that work synchronously: the caller may still be inside an outer transaction.
 */
export interface Notifier {
  /** An outbound message was stored QUEUED and awaits its hand-over to the transport. */
  messageQueued(handle: string): void;
  /** New rows are due in the webhook outbox. */
  outboxWritten(): void;
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
};
