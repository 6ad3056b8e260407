/** The outbox rows as the dispatcher's statements read and write them (delivery-claims.ts, delivery-outcomes.ts). */

import type { AttemptOutcome } from '../../../domain/attempt-outcome.ts';
import type { LeftOut } from '../../../domain/callback-claims.ts';
import type { QueuePlace } from '../../../domain/claim-reads.ts';
import type { webhookAttempts, webhookDeliveries } from '../../schema.ts';

type DeliveryRow = typeof webhookDeliveries.$inferSelect;

/** A callback to send: the rest of the row (state, attempts, timestamps) starts the same for all. */
export type OutboxEntry = Pick<DeliveryRow, 'webhookId' | 'accountId' | 'messageHandle' | 'eventType' | 'url' | 'payload'> & {
  /** Signs this delivery instead of the account's secret (an account webhook entry's own, or its globalSecret). */
  signingSecret?: string | null | undefined;
};

/** A callback that may be claimed: the columns a post needs. */
export type CandidateDelivery = Pick<
  DeliveryRow,
  'seq' | 'webhookId' | 'accountId' | 'messageHandle' | 'eventType' | 'url' | 'payload' | 'attemptCount' | 'signingSecret'
>;

/** A due callback, with its place in the due order. */
export type DueDelivery = CandidateDelivery & QueuePlace;

/** A claimed row, with the account's signing secrets (read once per account per claim, not per row). */
export type ClaimedDelivery = CandidateDelivery & {
  /** The lease this claim holds: recording an attempt checks it, so a dispatcher whose lease lapsed cannot overwrite the next one's work. */
  leaseExpiresAt: number;
  webhookSecret: string | null;
  previousWebhookSecret: string | null;
  previousWebhookSecretExpiresAt: number | null;
};

export type AttemptRecord = Omit<typeof webhookAttempts.$inferSelect, 'id' | 'deliverySeq'>;

export type FinishedDelivery = {
  seq: number;
  /** Whose delivery it is: the account's live views hear of the attempt once it is recorded. */
  accountId: string;
  /** The message and URL whose next callback a delivered or given-up row lets go. */
  messageHandle: string;
  url: string;
  leaseExpiresAt: number;
  attempt: AttemptRecord;
  outcome: AttemptOutcome;
};

/** A candidate's columns, read as an array (better-sqlite3's `raw()`): its row objects, built a column at a time, cost twice as much. */
export const CANDIDATE_COLUMNS = (alias: string) =>
  ['seq', 'webhook_id', 'account_id', 'message_handle', 'event_type', 'url', 'payload', 'attempt_count', 'signing_secret']
    .map((column) => `${alias}.${column}`)
    .join(', ');

export type RawCandidate = [number, string, string, string, CandidateDelivery['eventType'], string, string, number, string | null];
/** A due candidate: its due time last. */
export type RawDue = [...RawCandidate, number];

export function candidateOf(row: RawCandidate | RawDue): CandidateDelivery {
  const [seq, webhookId, accountId, messageHandle, eventType, url, payload, attemptCount, signingSecret] = row;
  return { seq, webhookId, accountId, messageHandle, eventType, url, payload, attemptCount, signingSecret };
}

export function dueOf(row: RawDue): DueDelivery {
  return { ...candidateOf(row), dueAt: row[9] };
}

export const NOTHING_LEFT_OUT: LeftOut = { accounts: [], shares: [] };

/** The shares a read leaves out as both backends compare them: account id, a space, the URL up to its path. */
export function leftOutKeys(leftOut: LeftOut): string[] {
  return leftOut.shares.map((share) => `${share.accountId} ${share.urlBeforePath}`);
}
