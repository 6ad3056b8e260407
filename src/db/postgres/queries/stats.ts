import { sql } from 'drizzle-orm';
import { WAITS_FOR_EARLIER_CALLBACK } from '../../../domain/delivery-views.ts';
import type { MessageStatus } from '../../../domain/status.ts';
import type { FailingUrl, OutboxDepth } from '../../sqlite/queries/stats.ts';
import type { PgDb } from '../db.ts';
import { rawRows } from './raw-rows.ts';

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
 * Each URL's failing deliveries, with the status and error of the latest failure (SQLite fills
 * them from the row that gave max(); here the first of the rows ordered newest first), URLs in
 * byte order as SQLite groups them.
 */
const failingByUrl = (failedAt: 'updated_at' | 'completed_at') => sql`
  select url, count(*)::float8 as total, max(${sql.raw(failedAt)})::float8 as last_at,
    ((array_agg(last_status_code order by ${sql.raw(failedAt)} desc, seq desc))[1])::float8 as last_status_code,
    (array_agg(last_error order by ${sql.raw(failedAt)} desc, seq desc))[1] as last_error
  from webhook_deliveries`;

/**
 * Counts for `/metrics` and `textrelay status`: read at the moment they are asked for, never kept in memory.
 * Raw SQL: aggregates with a grouped CASE and ordered array_agg, which drizzle's builder cannot say.
 * postgres.js answers bigint as a string: counts and times are read as float8, a JS number.
 */
export function statsQueries(db: PgDb) {
  return {
    async messagesByStatus(): Promise<Partial<Record<MessageStatus, number>>> {
      const counts: Partial<Record<MessageStatus, number>> = {};
      const rows = await rawRows<{ status: MessageStatus; total: number }>(
        db,
        sql`select status, count(*)::float8 as total from messages group by status`,
      );
      for (const row of rows) counts[row.status] = row.total;
      return counts;
    },

    /** Each reads only its state's partial index (due, lease, failed): delivered rows, the bulk, are never walked. */
    async outboxDepth(now: number): Promise<OutboxDepth> {
      const depth: OutboxDepth = { due: 0, retry_wait: 0, held: 0, delivering: 0, failed: 0 };
      const pending = await rawRows<{ kind: 'due' | 'retry_wait' | 'held'; total: number }>(
        db,
        sql`
        select case when next_attempt_at = ${sql.raw(String(WAITS_FOR_EARLIER_CALLBACK))} then 'held'
                    when next_attempt_at <= ${now} then 'due' else 'retry_wait' end as kind,
               count(*)::float8 as total
        from webhook_deliveries where state = 'pending' group by 1`,
      );
      for (const row of pending) depth[row.kind] = row.total;
      const [states] = await rawRows<{ delivering: number; failed: number }>(
        db,
        sql`
        select (select count(*) from webhook_deliveries where state = 'delivering')::float8 as delivering,
               (select count(*) from webhook_deliveries where state = 'failed')::float8 as failed`,
      );
      depth.delivering = states!.delivering;
      depth.failed = states!.failed;
      return depth;
    },

    /** When the longest-waiting due delivery became due; null when none is due. */
    async oldestDueAt(now: number): Promise<number | null> {
      const [row] = await rawRows<{ at: number | null }>(
        db,
        sql`select min(next_attempt_at)::float8 as at from webhook_deliveries where state = 'pending' and next_attempt_at <= ${now}`,
      );
      return row?.at ?? null;
    },

    /** URLs with deliveries retrying now, and URLs with deliveries given up at or after `since`. */
    async failingUrls(since: number): Promise<FailingUrl[]> {
      // Retrying rows are unfinished rows with an attempt behind them (the partial due and lease indexes);
      // given-up ones come from the partial failed index.
      const retrying = await rawRows<RawFailing>(
        db,
        sql`${failingByUrl('updated_at')} where (state = 'pending' or state = 'delivering') and attempt_count > 0
            group by url order by url collate "C"`,
      );
      const givenUp = await rawRows<RawFailing>(
        db,
        sql`${failingByUrl('completed_at')} where state = 'failed' and completed_at >= ${since}
            group by url order by url collate "C"`,
      );
      return [...retrying.map(failingUrl('retrying')), ...givenUp.map(failingUrl('givenUp'))];
    },
  };
}
