import { createHash } from 'node:crypto';
import type { AccountRow } from '../db/rows.ts';
import { ErrorCode } from '../domain/error-codes.ts';
import { IDEMPOTENCY_WINDOW_MS } from '../domain/limits.ts';
import { AppError } from './app-error.ts';
import type { ServiceDeps } from './deps.ts';
import { pruneInBatches } from './pruning.ts';
import { inTransaction } from './transactions.ts';

export type StoredResponse<T> = { httpStatus: number; body: T };

/**
 * Runs `work` at most once per (account, key) within the window: a repeat with the same request
 * gets the first answer back, a repeat with a different request is a 409. The lookup, the work and
 * the saved answer share one transaction, so two identical requests can never both do the work.
 */
export async function withIdempotency<T>(
  deps: ServiceDeps,
  account: AccountRow,
  key: string | undefined,
  request: { operation: string; input: unknown },
  work: (deps: ServiceDeps) => Promise<StoredResponse<T>>,
): Promise<StoredResponse<T>> {
  if (key === undefined) return work(deps);
  const requestHash = createHash('sha256').update(request.operation).update(JSON.stringify(request.input)).digest('hex');
  return inTransaction(deps, async (deps) => {
    const now = deps.clock.now();
    const previous = await deps.store.idempotency.findForUpdate(account.id, key);
    if (previous && now - previous.createdAt < IDEMPOTENCY_WINDOW_MS) {
      if (previous.requestHash !== requestHash) {
        throw new AppError(ErrorCode.conflict, 'Idempotency-Key was already used with a different request');
      }
      return { httpStatus: previous.responseStatus, body: JSON.parse(previous.responseBody) as T };
    }
    const response = await work(deps);
    await deps.store.idempotency.save({
      accountId: account.id,
      key,
      requestHash,
      responseStatus: response.httpStatus,
      responseBody: JSON.stringify(response.body),
      createdAt: now,
    });
    return response;
  });
}

/**
 * Removes, batch by batch, the keys `withIdempotency` no longer replays (created a whole window
 * ago or earlier): a send with such a key runs again whether its row is there or not.
 */
export function pruneExpiredIdempotencyKeys(deps: ServiceDeps, now: number): AsyncGenerator<number, void, void> {
  const windowStart = now - IDEMPOTENCY_WINDOW_MS;
  return pruneInBatches(async (afterRowid, limit) => await deps.store.idempotency.pruneCreatedBy(windowStart, afterRowid, limit));
}
