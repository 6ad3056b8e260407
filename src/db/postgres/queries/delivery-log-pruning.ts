import { and, asc, gt, inArray, lt } from 'drizzle-orm';
import type { PruneBatch } from '../../prune-batch.ts';
import type { PgDb } from '../db.ts';
import { webhookAttempts, webhookDeliveries } from '../schema.ts';

/** The PostgreSQL twin of ../../sqlite/queries/delivery-log-pruning.ts: forgetting old deliveries, walking the log by seq. */
export function deliveryLogPruning(db: PgDb) {
  return {
    /**
     * Deletes, with their attempts, the deliveries delivered or given up before `cutoff`, among the
     * `limit` oldest rows after `afterSeq`, in one transaction.
     */
    pruneFinished(cutoff: number, afterSeq: number, limit: number): Promise<PruneBatch> {
      return db.transaction(async (tx) => {
        const entries = await tx
          .select({
            seq: webhookDeliveries.seq,
            state: webhookDeliveries.state,
            createdAt: webhookDeliveries.createdAt,
            completedAt: webhookDeliveries.completedAt,
          })
          .from(webhookDeliveries)
          .where(gt(webhookDeliveries.seq, afterSeq))
          .orderBy(asc(webhookDeliveries.seq))
          .limit(limit);
        /*
         * A row created at or after the cutoff ends the batch: it and every later row (created later
         * still) finished after the cutoff, if at all. Rows older than the cutoff that are still
         * pending, or finished after it, are stepped over and forgotten by a later run.
         */
        const firstYoung = entries.findIndex((entry) => entry.createdAt >= cutoff);
        const old = firstYoung === -1 ? entries : entries.slice(0, firstYoung);
        const finishedBeforeCutoff = old.filter(
          (entry) => (entry.state === 'delivered' || entry.state === 'failed') && entry.completedAt !== null && entry.completedAt < cutoff,
        );
        const pruned = await deleteUnlessReplayed(
          tx,
          finishedBeforeCutoff.map((entry) => entry.seq),
          cutoff,
        );
        const walkIsOver = firstYoung !== -1 || entries.length < limit;
        return { pruned, resumeAfter: walkIsOver ? null : entries.at(-1)!.seq };
      });
    },
  };
}

/** Deletes these deliveries and their attempts, but not one replayed since it was read (locked first, so none is replayed meanwhile). */
async function deleteUnlessReplayed(tx: PgDb, seqs: number[], cutoff: number): Promise<number> {
  if (seqs.length === 0) return 0;
  const still = await tx
    .select({ seq: webhookDeliveries.seq })
    .from(webhookDeliveries)
    .where(
      and(
        inArray(webhookDeliveries.seq, seqs),
        inArray(webhookDeliveries.state, ['delivered', 'failed']),
        lt(webhookDeliveries.completedAt, cutoff),
      ),
    )
    .for('update');
  if (still.length === 0) return 0;
  const gone = still.map((row) => row.seq);
  await tx.delete(webhookAttempts).where(inArray(webhookAttempts.deliverySeq, gone));
  await tx.delete(webhookDeliveries).where(inArray(webhookDeliveries.seq, gone));
  return gone.length;
}
