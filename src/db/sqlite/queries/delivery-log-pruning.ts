import type { DeliveryState } from '../../../domain/delivery-views.ts';
import type { PruneBatch } from '../../prune-batch.ts';
import type { Db } from '../connection.ts';

type RawLogEntry = { seq: number; state: DeliveryState; created_at: number; completed_at: number | null };

/** Forgetting old deliveries. Raw SQL: a rowid walk with an unplanned LIMIT, deleting row by row in one transaction. */
export function deliveryLogPruning(db: Db) {
  const client = db.$client;

  // The log from its oldest row (rowid order), so forgetting old deliveries never needs an index of its own.
  const oldestEntries = client.prepare(`
    select seq, state, created_at, completed_at from webhook_deliveries where seq > @afterSeq order by seq limit +@limit`);
  const deleteAttempts = client.prepare(`delete from webhook_attempts where delivery_seq = ?`);
  const deleteDelivery = client.prepare(`delete from webhook_deliveries where seq = ?`);

  /*
   * A row created at or after the cutoff ends the batch: it and every later row (created later
   * still) finished after the cutoff, if at all. Rows older than the cutoff that are still pending,
   * or finished after it, are stepped over and forgotten by a later run.
   */
  const pruneTransaction = client.transaction((cutoff: number, afterSeq: number, limit: number): PruneBatch => {
    const entries = oldestEntries.all({ afterSeq, limit }) as RawLogEntry[];
    let pruned = 0;
    for (const entry of entries) {
      if (entry.created_at >= cutoff) return { pruned, resumeAfter: null };
      const finished = entry.state === 'delivered' || entry.state === 'failed';
      if (!finished || entry.completed_at === null || entry.completed_at >= cutoff) continue;
      deleteAttempts.run(entry.seq);
      deleteDelivery.run(entry.seq);
      pruned += 1;
    }
    return { pruned, resumeAfter: entries.length < limit ? null : entries.at(-1)!.seq };
  });

  return {
    /**
     * Deletes, with their attempts, the deliveries delivered or given up before `cutoff`, among the
     * `limit` oldest rows after `afterSeq`, in one transaction.
     */
    pruneFinished(cutoff: number, afterSeq: number, limit: number): PruneBatch {
      return pruneTransaction.immediate(cutoff, afterSeq, limit);
    },
  };
}
