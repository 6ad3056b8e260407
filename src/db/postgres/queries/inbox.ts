import { and, eq, inArray, lt, lte, sql } from 'drizzle-orm';
import type { PruneBatch } from '../../prune-batch.ts';
import type { StatusEventRow } from '../../rows.ts';
import type { InboxSessionRow } from '../../sqlite/queries/inbox.ts';
import type { PgDb } from '../db.ts';
import { inboxSessions, statusEvents } from '../schema.ts';
import { arrivalOrder, statusEventRowColumns } from './status-event-order.ts';

export function inboxQueries(db: PgDb) {
  return {
    async insertSession(row: InboxSessionRow): Promise<void> {
      await db.insert(inboxSessions).values(row);
    },
    async findSession(tokenHash: string): Promise<InboxSessionRow | undefined> {
      const [session] = await db.select().from(inboxSessions).where(eq(inboxSessions.tokenHash, tokenHash));
      return session;
    },
    async deleteSession(tokenHash: string): Promise<void> {
      await db.delete(inboxSessions).where(eq(inboxSessions.tokenHash, tokenHash));
    },
    /** inbox_sessions_account_idx */
    async deleteExpiredSessions(accountId: string, now: number): Promise<void> {
      await db.delete(inboxSessions).where(and(eq(inboxSessions.accountId, accountId), lt(inboxSessions.expiresAt, now)));
    },
    /**
     * One batch of removing the sessions, of any account, that expired at or before `now`.
     * inbox_sessions has no insertion column in PostgreSQL to walk as SQLite walks rowid: each
     * batch removes up to `limit` expired sessions wherever they are, and the walk goes on while
     * batches come back full (`afterRowid` only counts what went).
     */
    async pruneExpiredSessions(now: number, afterRowid: number, limit: number): Promise<PruneBatch> {
      const expired = db
        .select({ tokenHash: inboxSessions.tokenHash })
        .from(inboxSessions)
        .where(lte(inboxSessions.expiresAt, now))
        .limit(limit)
        // Another process pruning at the same time takes other sessions, not the same ones.
        .for('update', { skipLocked: true });
      const removed = await db
        .delete(inboxSessions)
        .where(inArray(inboxSessions.tokenHash, expired))
        .returning({ tokenHash: inboxSessions.tokenHash });
      return { pruned: removed.length, resumeAfter: removed.length < limit ? null : afterRowid + removed.length };
    },
    /** The status histories of these messages, each in arrival order (status_events_handle_idx). */
    async histories(handles: readonly string[]): Promise<StatusEventRow[]> {
      if (handles.length === 0) return [];
      return (
        db
          .select(statusEventRowColumns)
          .from(statusEvents)
          .where(inArray(statusEvents.messageHandle, [...handles]))
          // Handles in byte order, as SQLite compares text.
          .orderBy(sql`${statusEvents.messageHandle} collate "C"`, ...arrivalOrder)
      );
    },
  };
}
