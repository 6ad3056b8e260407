import type { PruneBatch } from '../db/prune-batch.ts';

/** The tables the retention pass removes old rows from (a delivery goes with its attempts). */
export const PRUNED_TABLES = [
  'webhook_deliveries',
  'idempotency_keys',
  'inbox_sessions',
  'orphan_status_events',
  'unrouted_inbound',
  'account_events',
  'media_objects',
] as const;
export type PrunedTable = (typeof PRUNED_TABLES)[number];

/** Rows looked at per transaction when removing old ones: a running server's writes wait for one batch at most. */
const PRUNE_BATCH = 500;

/**
 * Walks a table from its oldest row, one transaction per batch, yielding how many rows each batch
 * removed: the caller decides what happens between batches (nothing for the CLI, a pause in the server).
 */
export async function* pruneInBatches(
  batch: (afterRowid: number, limit: number) => Promise<PruneBatch>,
): AsyncGenerator<number, void, void> {
  for (let afterRowid: number | null = 0; afterRowid !== null; ) {
    const { pruned, resumeAfter } = await batch(afterRowid, PRUNE_BATCH);
    afterRowid = resumeAfter;
    yield pruned;
  }
}
