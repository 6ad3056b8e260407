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
   * Like `transaction`, for the hot write paths (sends, ingest, hand-overs): a backend may run
   * the work of many callers in one shared transaction, each in its own savepoint (a failing one
   * rolls back alone), and every caller's answer waits for that one COMMIT.
   */
  batchedTransaction<T>(work: (tx: Store) => Promise<T>): Promise<T>;
  /** Which database answers, for logs and readiness: never for choosing behaviour above the store. */
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
