/** How `textrelay tail` shows what happened: one view per event, times in ISO 8601. */
import { toIso } from './dates.ts';

/** A status event as recorded, applied or not. */
export type StatusEventFacts = {
  at: number;
  account: string | null;
  messageHandle: string;
  status: string;
  applied: boolean;
  implied: boolean;
  notAppliedReason: string | null;
  source: string;
  errorCode: number | null;
  errorMessage: string | null;
};

/** A message an end user sent to an account. */
export type InboundFacts = {
  at: number;
  account: string;
  messageHandle: string;
  fromNumber: string;
  toNumber: string;
  groupId: string | null;
  content: string;
  mediaUrl: string;
};

/** A message to a line no account owns: kept for the operator, given to no account. */
export type UnroutedFacts = {
  at: number;
  fromNumber: string;
  toNumber: string;
  groupId: string | null;
  content: string;
  mediaUrl: string;
  source: string;
};

/** One attempt at a webhook delivery, with what the delivery became. */
export type DeliveryAttemptFacts = {
  at: number;
  account: string;
  webhookId: string;
  eventType: string;
  messageHandle: string;
  url: string;
  /** 1 for the first attempt; a replay counts on. */
  attempt: number;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  /** No attempt came after this one (yet). */
  isLatest: boolean;
  deliveryState: string;
};

/**
 * delivered: the receiver answered 2xx; failed: the delivery was given up after this attempt;
 * retrying: another attempt is planned (or came after this one).
 */
export function attemptOutcome(
  facts: Pick<DeliveryAttemptFacts, 'statusCode' | 'isLatest' | 'deliveryState'>,
): 'delivered' | 'failed' | 'retrying' {
  if (facts.statusCode !== null && facts.statusCode >= 200 && facts.statusCode < 300) return 'delivered';
  return facts.isLatest && facts.deliveryState === 'failed' ? 'failed' : 'retrying';
}

export function toStatusEventView(facts: StatusEventFacts) {
  return {
    type: 'status' as const,
    at: toIso(facts.at),
    account: facts.account,
    message_handle: facts.messageHandle,
    status: facts.status,
    applied: facts.applied,
    not_applied_reason: facts.notAppliedReason,
    implied: facts.implied,
    source: facts.source,
    error_code: facts.errorCode,
    error_message: facts.errorMessage,
  };
}

export function toInboundView(facts: InboundFacts) {
  return {
    type: 'inbound' as const,
    at: toIso(facts.at),
    account: facts.account,
    message_handle: facts.messageHandle,
    from_number: facts.fromNumber,
    to_number: facts.toNumber,
    group_id: facts.groupId,
    content: facts.content,
    media_url: facts.mediaUrl === '' ? null : facts.mediaUrl,
  };
}

export function toUnroutedView(facts: UnroutedFacts) {
  return {
    type: 'unrouted' as const,
    at: toIso(facts.at),
    account: null,
    from_number: facts.fromNumber,
    to_number: facts.toNumber,
    group_id: facts.groupId,
    content: facts.content,
    media_url: facts.mediaUrl === '' ? null : facts.mediaUrl,
    source: facts.source,
  };
}

export function toDeliveryAttemptView(facts: DeliveryAttemptFacts) {
  return {
    type: 'webhook' as const,
    at: toIso(facts.at),
    account: facts.account,
    webhook_id: facts.webhookId,
    event_type: facts.eventType,
    message_handle: facts.messageHandle,
    url: facts.url,
    attempt: facts.attempt,
    outcome: attemptOutcome(facts),
    status_code: facts.statusCode,
    error: facts.error,
    duration_ms: facts.durationMs,
  };
}

export type EventView =
  | ReturnType<typeof toStatusEventView>
  | ReturnType<typeof toInboundView>
  | ReturnType<typeof toUnroutedView>
  | ReturnType<typeof toDeliveryAttemptView>;
