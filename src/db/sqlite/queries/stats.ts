import { WAITS_FOR_EARLIER_CALLBACK } from '../../../domain/delivery-views.ts';
import type { MessageStatus } from '../../../domain/status.ts';
import type { Db } from '../connection.ts';

/** Where the outbox's unfinished and given-up rows stand; delivered rows are history, not depth. */
export type OutboxDepth = {
  /** Pending and due now: the dispatcher should be sending these. */
  due: number;
  /** Pending after a failed attempt, until their retry time. */
  retry_wait: number;
  /** Pending behind an earlier unfinished callback of the same message and URL. */
  held: number;
  delivering: number;
  /** Given up (retries spent or 410 Gone); they stay until replayed. */
  failed: number;
};

/** Deliveries to one URL that are failing in one way (retrying now, or given up), with the latest failure among them. */
export type FailingUrl = {
  url: string;
  kind: 'retrying' | 'givenUp';
  count: number;
  lastFailureAt: number;
  lastStatusCode: number | null;
  lastError: string | null;
};

type RawFailing = { url: string; total: number; last_at: number; last_status_code: number | null; last_error: string | null };

function failingUrl(kind: FailingUrl['kind']) {
  return (row: RawFailing): FailingUrl => ({
    url: row.url,
    kind,
    count: row.total,
    lastFailureAt: row.last_at,
    lastStatusCode: row.last_status_code,
    lastError: row.last_error,
  });
}

/**
 * Counts for `/metrics` and `textrelay status`: read at the moment they are asked for, never kept in memory.
 * Raw SQL: aggregates pinned to an index with INDEXED BY, which drizzle's builder cannot say.
 */
export function statsQueries(db: Db) {
  const client = db.$client;

  /*
   * Counted per account first: that walks messages_account_status_date_idx in order, with no
   * temporary B-tree per row, several times cheaper than a plain GROUP BY status.
   */
  const messagesByStatus = client.prepare(`
    select status, sum(total) as total
    from (select account_id, status, count(*) as total from messages group by account_id, status)
    group by status`);

  // Each reads only its state's partial index (due, lease, failed): delivered rows, the bulk, are never walked.
  const pendingByKind = client.prepare(`
    select case when next_attempt_at = ${WAITS_FOR_EARLIER_CALLBACK} then 'held'
                when next_attempt_at <= @now then 'due' else 'retry_wait' end as kind,
           count(*) as total
    from webhook_deliveries where state = 'pending' group by kind`);
  // Literal states, as the partial indexes name them: a bound one could use none of them.
  const delivering = client.prepare(`select count(*) as total from webhook_deliveries where state = 'delivering'`);
  const failed = client.prepare(`select count(*) as total from webhook_deliveries where state = 'failed'`);
  const oldestDue = client.prepare(`
    select min(next_attempt_at) as at from webhook_deliveries where state = 'pending' and next_attempt_at <= @now`);

  /*
   * SQLite fills the bare columns (last_status_code, last_error) from the row that gave max():
   * each URL's latest failure. Retrying rows are unfinished rows with an attempt behind them;
   * given-up ones come from the partial failed index. INDEXED BY: statistics gathered while most
   * rows were unfinished (a young database) make the planner scan the table, and they stay until
   * the next ANALYZE however many delivered rows come.
   */
  const retryingByUrl = client.prepare(`
    select url, count(*) as total, max(updated_at) as last_at, last_status_code, last_error
    from (
      select url, updated_at, last_status_code, last_error from webhook_deliveries indexed by webhook_deliveries_due_idx
      where state = 'pending' and attempt_count > 0
      union all
      select url, updated_at, last_status_code, last_error from webhook_deliveries indexed by webhook_deliveries_lease_idx
      where state = 'delivering' and attempt_count > 0)
    group by url`);
  const givenUpByUrl = client.prepare(`
    select url, count(*) as total, max(completed_at) as last_at, last_status_code, last_error
    from webhook_deliveries where state = 'failed' and completed_at >= @since group by url`);

  return {
    messagesByStatus(): Partial<Record<MessageStatus, number>> {
      const counts: Partial<Record<MessageStatus, number>> = {};
      for (const row of messagesByStatus.all() as { status: MessageStatus; total: number }[]) counts[row.status] = row.total;
      return counts;
    },

    outboxDepth(now: number): OutboxDepth {
      const depth: OutboxDepth = { due: 0, retry_wait: 0, held: 0, delivering: 0, failed: 0 };
      for (const row of pendingByKind.all({ now }) as { kind: 'due' | 'retry_wait' | 'held'; total: number }[]) depth[row.kind] = row.total;
      depth.delivering = (delivering.get() as { total: number }).total;
      depth.failed = (failed.get() as { total: number }).total;
      return depth;
    },

    /** When the longest-waiting due delivery became due; null when none is due. */
    oldestDueAt(now: number): number | null {
      return (oldestDue.get({ now }) as { at: number | null }).at;
    },

    /** URLs with deliveries retrying now, and URLs with deliveries given up at or after `since`. */
    failingUrls(since: number): FailingUrl[] {
      return [
        ...(retryingByUrl.all() as RawFailing[]).map(failingUrl('retrying')),
        ...(givenUpByUrl.all({ since }) as RawFailing[]).map(failingUrl('givenUp')),
      ];
    },
  };
}
