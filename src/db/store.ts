import type { SqliteQueries } from './sqlite/queries.ts';

/** One query module as the services see it: every method answers through a promise. */
type Answering<Module> = {
  [Method in keyof Module]: Module[Method] extends (...args: infer Args) => infer Result
    ? (...args: Args) => Promise<Awaited<Result>>
    : never;
};

/**
 * Every query the services may ask, by module and name. The SQLite queries define the shape (their
 * answers are immediate); every backend answers the same calls through promises.
 */
export type Queries = { [Module in keyof SqliteQueries]: Answering<SqliteQueries[Module]> };

/** One caller's part of a batch. */
export type BatchWork = (tx: Store) => Promise<unknown>;

/** What one work of a batch came to: its value, or its error. */
export type BatchOutcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/**
 * What the services hold of the database, whichever backend runs: all SQL lives behind it, and
 * nothing above it knows which database answers.
 */
export interface Store extends Queries {
  /**
   * Runs `work` in one transaction (a savepoint when called on a transaction's store) and commits
   * it once `work` resolves. `work` must make every query through the store it is given, and must
   * not wait on anything but that store: other callers wait for the commit.
   */
  transaction<T>(work: (tx: Store) => Promise<T>): Promise<T>;
  /**
   * Group commit's part in the store: runs the works of several callers in one transaction and
   * commits once, answering each work's own outcome in their order. A work that fails leaves
   * nothing of its own stored and changes nothing for the others; when the commit itself fails,
   * nothing is stored and the call rejects. Works must touch only the store they are given.
   */
  batch(works: readonly BatchWork[]): Promise<BatchOutcome[]>;
  /** How many batches may run at once: one where every transaction waits for the last, more on a pool of connections. */
  readonly batchesAtOnce: number;
}

// The row and filter shapes the services use, whichever backend answers them (SQLite's modules define them).
export type { AccountEventRow, NewAccountEvent } from './sqlite/queries/account-events.ts';
export type { ContactAndPin, ContactFieldsUpdate, ContactListQuery, ContactV2ListQuery } from './sqlite/queries/contacts.ts';
export type { ConversationKind } from './sqlite/queries/conversations.ts';
export type { AttemptRecord, ClaimedDelivery, DueDelivery, FinishedDelivery, OutboxEntry } from './sqlite/queries/delivery-rows.ts';
export type { EventCursor, EventTable, Followed } from './sqlite/queries/events.ts';
export type { MediaObjectRow } from './sqlite/queries/media.ts';
export type {
  HandoverPosition,
  HandoverSender,
  MessageInsert,
  MessageListFilter,
  ReportTarget,
  StatusEventIdentity,
  StatusEventInsert,
  StatusUpdate,
  UnsettledCursor,
} from './sqlite/queries/messages.ts';
export type { MessageV2Filter, MessageV2Order } from './sqlite/queries/messages-v2.ts';
export type { DeliveryFilter, WebhookAttemptRow, WebhookDeliveryRow } from './sqlite/queries/outbox.ts';
export type { NewSandboxStep, SandboxStepRow } from './sqlite/queries/sandbox.ts';
export type { OutboxDepth } from './sqlite/queries/stats.ts';
export type { WebhookSubscriptionRow } from './sqlite/queries/webhook-subscriptions.ts';
export type { SendWrite, StatusStepWrite } from './sqlite/queries/whole-writes.ts';
