import type { NewAccountEvent } from '../db/store.ts';
import type { AccountEventType } from '../domain/account-events.ts';
import type { ServiceDeps } from './deps.ts';
import { pruneInBatches } from './pruning.ts';

/**
 * Appends one event to the account's log. Call inside the transaction that records the fact, so
 * the log holds an event exactly when the fact committed; live streams hear of it through
 * `notify.accountActivity` once the caller's transaction is over.
 */
export async function recordAccountEvent(
  deps: ServiceDeps,
  accountId: string,
  type: AccountEventType,
  data: Record<string, unknown>,
  now: number,
): Promise<void> {
  await deps.store.accountEvents.append(accountEvent(accountId, type, data, now));
}

/** The event recordAccountEvent appends, for a whole write that appends it with the rest. */
export function accountEvent(accountId: string, type: AccountEventType, data: Record<string, unknown>, now: number): NewAccountEvent {
  return { accountId, type, data: JSON.stringify(data), occurredAt: now };
}

/** Drops, batch by batch, the events that occurred at or before `until`: a stream resumes from the log only within its retention. */
export function pruneAccountEvents(deps: ServiceDeps, until: number): AsyncGenerator<number, void, void> {
  return pruneInBatches(async (afterRowid, limit) => await deps.store.accountEvents.pruneOccurredBy(until, afterRowid, limit));
}
