/** Reads the webhook outbox of the test database, as the dispatcher would find it. */
import { asc, eq } from 'drizzle-orm';
import { webhookDeliveries as pgWebhookDeliveries } from '../../src/db/postgres/schema.ts';
import { webhookDeliveries } from '../../src/db/schema.ts';
import type { ClaimedDelivery, FinishedDelivery } from '../../src/db/sqlite/queries/delivery-rows.ts';
import type { AttemptOutcome } from '../../src/domain/attempt-outcome.ts';
import { createCallbackClaims } from '../../src/domain/callback-claims.ts';
import { finishedDelivery, recordAndClaim } from '../../src/services/callback-dispatch.ts';
import type { ServiceDeps } from '../../src/services/deps.ts';
import type { TestApp } from './app.ts';

export type OutboxRow = typeof webhookDeliveries.$inferSelect;

/** Every outbox row written for a message, in seq order (the order its callbacks must go out). */
export async function outboxFor(t: TestApp, handle: string): Promise<OutboxRow[]> {
  if (t.postgres !== undefined) {
    const table = pgWebhookDeliveries;
    return await (await t.postgres).select().from(table).where(eq(table.messageHandle, handle)).orderBy(asc(table.seq));
  }
  return t.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.messageHandle, handle)).orderBy(asc(webhookDeliveries.seq)).all();
}

/** The parsed bodies of a message's outbox rows, in seq order. */
export async function payloadsFor(t: TestApp, handle: string): Promise<any[]> {
  return (await outboxFor(t, handle)).map((row) => JSON.parse(row.payload));
}

/** The statuses a message's status callbacks will report, in the order they go out. */
export async function callbackStatuses(t: TestApp, handle: string): Promise<string[]> {
  return (await payloadsFor(t, handle)).map((payload) => payload.status);
}

/** A claimed row's attempt, as the dispatcher reports it back: answered `statusCode` (and `excerpt`), ending in `outcome`. */
export function finishedAs(
  row: ClaimedDelivery,
  outcome: AttemptOutcome,
  answer: { statusCode: number; attemptedAt?: number; durationMs?: number; excerpt?: string },
): FinishedDelivery {
  const attempt = {
    attemptedAt: answer.attemptedAt ?? 0,
    durationMs: answer.durationMs ?? 1,
    statusCode: answer.statusCode,
    responseExcerpt: answer.excerpt ?? '',
    error: null,
  };
  return finishedDelivery(row, attempt, outcome);
}

/**
 * What a dispatcher's step leases when it has `slots` free slots and nothing in flight: the due
 * callbacks (and, given `finished`, the next callbacks those let go), leased for `leaseMs`.
 */
export async function claimDue(
  deps: ServiceDeps,
  slots: number,
  { leaseMs = 60_000, finished = [] as readonly FinishedDelivery[] } = {},
): Promise<ClaimedDelivery[]> {
  return await recordAndClaim(
    deps,
    finished,
    // No newcomer slots: one account may take all `slots` on one host.
    createCallbackClaims({ concurrency: slots, perHostLimit: slots, perAccountLimit: slots, newcomerSlots: 0 }).claim(),
    leaseMs,
  );
}
