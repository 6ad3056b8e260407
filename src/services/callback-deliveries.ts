import type { AccountRow } from '../db/rows.ts';
import type { DeliveryFilter, WebhookAttemptRow, WebhookDeliveryRow } from '../db/store.ts';
import { type DeliveryView, isHeld, toDeliveryView } from '../domain/delivery-views.ts';
import { ErrorCode } from '../domain/error-codes.ts';
import { AppError } from './app-error.ts';
import type { ServiceDeps } from './deps.ts';
import { pruneInBatches } from './pruning.ts';
import { inTransaction } from './transactions.ts';

/** The delivery log: deliveries with every attempt, re-sending the ones given up, forgetting old ones. */

async function withAttempts(deps: ServiceDeps, rows: readonly WebhookDeliveryRow[]): Promise<DeliveryView[]> {
  const attempts = new Map<number, WebhookAttemptRow[]>();
  for (const attempt of await deps.store.outbox.attemptsOf(rows.map((row) => row.seq))) {
    attempts.set(attempt.deliverySeq, [...(attempts.get(attempt.deliverySeq) ?? []), attempt]);
  }
  const views: DeliveryView[] = [];
  for (const row of rows) {
    const blocker = isHeld(row) ? ((await deps.store.outbox.blockerOf(row)) ?? null) : null;
    views.push(toDeliveryView(row, attempts.get(row.seq) ?? [], blocker));
  }
  return views;
}

/** The account's deliveries, newest first. */
export async function listDeliveries(deps: ServiceDeps, account: AccountRow, filter: DeliveryFilter): Promise<DeliveryView[]> {
  return withAttempts(deps, await deps.store.outbox.listForAccount(account.id, filter));
}

/** Every account's deliveries, newest first: the operator's view. */
export async function listAllDeliveries(deps: ServiceDeps, filter: DeliveryFilter): Promise<DeliveryView[]> {
  return withAttempts(deps, await deps.store.outbox.listAll(filter));
}

/**
 * Sends a delivery again, due now, with the same webhook-id (receivers deduplicate on it) and a
 * fresh retry schedule; the attempts made so far stay in the log. A held delivery is left as it
 * is (its view names the delivery it waits for). `account` limits it to that account's
 * deliveries (the API); the CLI passes none.
 */
export async function replayDelivery(deps: ServiceDeps, webhookId: string, account?: AccountRow): Promise<DeliveryView> {
  const view = await inTransaction(deps, async (deps) => {
    const row = await deps.store.outbox.findByWebhookId(webhookId);
    if (!row || (account !== undefined && row.accountId !== account.id)) {
      throw new AppError(ErrorCode.notFound, `Webhook delivery ${webhookId} not found`);
    }
    // A held delivery goes as soon as the one before it finishes: replaying it now would break the order.
    if (isHeld(row)) return (await withAttempts(deps, [row]))[0]!;
    if (!(await deps.store.outbox.replay(row.seq, deps.clock.now()))) {
      throw new AppError(
        ErrorCode.conflict,
        `Webhook delivery ${webhookId} is being delivered right now; replay it once that attempt finished`,
      );
    }
    return (await withAttempts(deps, [(await deps.store.outbox.findByWebhookId(webhookId))!]))[0]!;
  });
  deps.notify.outboxWritten();
  return view;
}

/** Called after each batch of a replay of many deliveries: how many are queued again so far, of how many. */
export type ReplayProgress = (done: number, total: number) => void;

/** One transaction per batch: a running server's writes wait for one batch, never for the whole replay. */
const REPLAY_BATCH = 500;

/**
 * Sends again every delivery given up at or after `since` (of `account`, or of all accounts), in
 * batches. Only those given up before the replay began: one that fails again meanwhile (a 410
 * receiver) is not picked up a second time. Each batch leaves the failed state, so the next one
 * starts where it stopped; an interrupted replay is finished by running it again.
 */
export async function replayFailedSince(
  deps: ServiceDeps,
  since: number,
  account?: AccountRow,
  onProgress?: ReplayProgress,
): Promise<string[]> {
  const window = { accountId: account?.id, until: deps.clock.now() };
  const total = await deps.store.outbox.countFailedSince(since, window);
  const replayed: string[] = [];
  for (;;) {
    const batch = await inTransaction(deps, async (deps) => {
      const now = deps.clock.now();
      const rows = await deps.store.outbox.failedSince(since, { ...window, limit: REPLAY_BATCH });
      for (const row of rows) await deps.store.outbox.replay(row.seq, now);
      return rows.map((row) => row.webhookId);
    });
    if (batch.length === 0) break;
    replayed.push(...batch);
    deps.notify.outboxWritten();
    onProgress?.(replayed.length, Math.max(total, replayed.length));
    if (batch.length < REPLAY_BATCH) break;
  }
  return replayed;
}

/**
 * Forgets the deliveries delivered or given up before `cutoff`, with their attempts, one
 * transaction per batch from the oldest row, yielding how many each batch forgot. Pending and
 * in-flight deliveries are never touched, however old.
 */
export function pruneDeliveries(deps: ServiceDeps, cutoff: number): AsyncGenerator<number, void, void> {
  return pruneInBatches(async (afterSeq, limit) => await deps.store.outbox.pruneFinished(cutoff, afterSeq, limit));
}
