import type { Logger } from 'pino';
import type { MessageRow } from '../db/rows.ts';
import type { HandoverSender, Store } from '../db/store.ts';
import type { AccountCache } from './account-cache.ts';
import type { CarrierDirectory } from './carrier-directory.ts';
import type { Clock } from './clock.ts';
import type { GroupCommit } from './group-commit.ts';
import type { ProviderAccounts } from './provider.ts';
import type { RateLimiter } from './rate-limiter.ts';

/**
 * Told after a commit that something is waiting for work outside the request. Implementations
 * must not do that work synchronously: the caller may still be inside an outer transaction.
 */
export interface Notifier {
  /** An outbound message was stored QUEUED and awaits its hand-over to the transport; `sender` is its account and line. */
  messageQueued(handle: string, sender: HandoverSender): void;
  /** New rows are due in the webhook outbox. */
  outboxWritten(): void;
  /** Sandbox steps were planned, the earliest of them due at `dueAt` (epoch ms). */
  sandboxPlanned?(dueAt: number): void;
  /**
   * Something in this account's conversations changed (a message, a status event): live views
   * refresh. May come from inside a transaction that later rolls back, which costs a needless refresh.
   */
  accountActivity?(accountId: string): void;
}

/**
 * The running transport's part in every send, so that the send path reads the same whichever
 * transport runs: asked inside the transaction that stores the message, told once it committed.
 */
export interface TransportAtSend {
  /**
   * Before the message is written: the transport's handle when it takes the message in this very
   * transaction (it is stored handed over, with no second write), or undefined to leave it QUEUED
   * for the courier.
   */
  handleAtSend(handle: string): string | undefined;
  /** Once the message is written, in the same transaction. */
  stored(deps: ServiceDeps, message: MessageRow): Promise<void>;
  /** After the commit; also after an idempotent replay of the answer, where it must change nothing. */
  committed(deps: ServiceDeps, handle: string, sender: HandoverSender): void;
}

/** The null implementation: nothing happens in the transaction, and the courier hands the message over after the commit. */
export const leaveToCourier: TransportAtSend = {
  handleAtSend: () => undefined,
  stored: async () => {},
  committed: (deps, handle, sender) => deps.notify.messageQueued(handle, sender),
};

/** What one account may keep (services/quotas.ts refuses more); 0 sets no limit. */
export type AccountQuotas = {
  /** Bytes of stored files (uploads and group photos): TEXTRELAY_MEDIA_QUOTA_MB. */
  mediaBytes: number;
  /** Live contacts, counted when the API creates some: TEXTRELAY_CONTACTS_QUOTA. */
  contacts: number;
};

/** What every use case may reach. Built once by the entry point (or a test) and passed down. */
export type ServiceDeps = {
  /** The database, with the account cache in front of its reads of per-account data (`caching-store.ts`). */
  store: Store;
  /** Group commit on `store`: the hot write paths' transactions share one commit under load. */
  groupCommit: GroupCommit;
  /** The account cache: `authenticate` keeps the accounts of verified credentials in it. */
  accountCache: AccountCache;
  clock: Clock;
  log: Logger;
  sendRateLimiter: RateLimiter;
  /** Every other API write, counted per row it touches (`writesKey`): contacts, webhook lists, groups, typing, media. */
  writeRateLimiter: RateLimiter;
  /** Lookups an account's line's carrier is asked per minute (TEXTRELAY_LOOKUP_RATE_LIMIT_PER_MINUTE). */
  lookupRateLimiter: RateLimiter;
  /** URLs an account may list per webhook type. */
  webhookUrlsPerType: number;
  notify: Notifier;
  /** Time zone of contacts' displayDate. */
  displayTimeZone: string;
  /** Service numbers given to an account created without an explicit count. */
  defaultNumbersPerAccount: number;
  /** What the transport does at each send: `leaveToCourier` unless the transport takes messages as they are stored. */
  transportAtSend: TransportAtSend;
  /** Per-account limits (TEXTRELAY_MEDIA_QUOTA_MB, TEXTRELAY_CONTACTS_QUOTA); 0 sets none. */
  quotas: AccountQuotas;
  /** The provider accounts behind the relay: set in upstream mode only, where SDK calls are forwarded to the account's. */
  providers?: ProviderAccounts | undefined;
  /** The carriers textrelay delivers through itself (TEXTRELAY_TRANSPORT bluebubbles, twilio, smsgate); empty otherwise. */
  carriers?: CarrierDirectory | undefined;
};
