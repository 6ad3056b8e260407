/** How the delivery log reads over the API and the CLI: webhook-id as the id, times in ISO 8601. */
import { toIso } from './dates.ts';
import type { ReceivePayload, StatusCallbackPayload } from './webhook-payloads.ts';

export const DELIVERY_STATES = ['pending', 'delivering', 'delivered', 'failed'] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

/** States as the log shows them: `held` is a pending delivery waiting behind an earlier one of its message and URL. */
export const DELIVERY_VIEW_STATES = [...DELIVERY_STATES, 'held'] as const;
export type DeliveryViewState = (typeof DELIVERY_VIEW_STATES)[number];

/**
 * What a delivery carries: a message's status for its status_callback, or an event for an account
 * webhook list (receive, outbound, typing_indicator, contact_created).
 */
export const WEBHOOK_EVENT_TYPES = ['message.status', 'message.received', 'message.outbound', 'typing.changed', 'contact.created'] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/**
 * `next_attempt_at` of a delivery waiting behind an earlier unfinished one of the same message and
 * URL (the latest time a Date can hold): it has no time of its own until that one finishes.
 */
export const WAITS_FOR_EARLIER_CALLBACK = 8_640_000_000_000_000;

export type DeliveryFacts = {
  webhookId: string;
  eventType: WebhookEventType;
  url: string;
  messageHandle: string;
  payload: string;
  state: DeliveryState;
  attemptCount: number;
  nextAttemptAt: number;
  lastStatusCode: number | null;
  lastError: string | null;
  createdAt: number;
  completedAt: number | null;
};

export type AttemptFacts = {
  attemptedAt: number;
  durationMs: number;
  statusCode: number | null;
  responseExcerpt: string;
  error: string | null;
};

export function toAttemptView(attempt: AttemptFacts) {
  return {
    attempted_at: toIso(attempt.attemptedAt),
    duration_ms: attempt.durationMs,
    status_code: attempt.statusCode,
    response_excerpt: attempt.responseExcerpt,
    error: attempt.error,
  };
}

export function isHeld(delivery: Pick<DeliveryFacts, 'state' | 'nextAttemptAt'>): boolean {
  return delivery.state === 'pending' && delivery.nextAttemptAt === WAITS_FOR_EARLIER_CALLBACK;
}

/** `heldBehind`: the webhook-id of the delivery a held one waits for (null when it is not held). */
export function toDeliveryView(delivery: DeliveryFacts, attempts: readonly AttemptFacts[], heldBehind: string | null = null) {
  const held = isHeld(delivery);
  const state: DeliveryViewState = held ? 'held' : delivery.state;
  return {
    id: delivery.webhookId,
    event_type: delivery.eventType,
    url: delivery.url,
    message_handle: delivery.messageHandle,
    state,
    held_behind: held ? heldBehind : null,
    attempt_count: delivery.attemptCount,
    // Only a scheduled delivery has a next attempt (a held one has none until the one before it finishes).
    next_attempt_at: delivery.state === 'pending' && !held ? toIso(delivery.nextAttemptAt) : null,
    last_status_code: delivery.lastStatusCode,
    last_error: delivery.lastError,
    created_at: toIso(delivery.createdAt),
    completed_at: delivery.completedAt === null ? null : toIso(delivery.completedAt),
    payload: JSON.parse(delivery.payload) as StatusCallbackPayload | ReceivePayload,
    attempts: attempts.map(toAttemptView),
  };
}

export type DeliveryView = ReturnType<typeof toDeliveryView>;
