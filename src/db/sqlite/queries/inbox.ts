import { and, asc, eq, inArray, lt, sql } from 'drizzle-orm';
import type { PruneBatch } from '../../prune-batch.ts';
import type { StatusEventRow } from '../../rows.ts';
import { inboxSessions, statusEvents } from '../../schema.ts';
import type { Db } from '../connection.ts';
import { oldestRowsPruner } from '../oldest-rows.ts';

export type InboxSessionRow = typeof inboxSessions.$inferSelect;

export function inboxQueries(db: Db) {
  // Sessions all last as long, so rowid (login) order is also the order in which they expire.
  const pruneExpiredSessions = oldestRowsPruner(db, 'inbox_sessions', 'expires_at');

  return {
    insertSession(row: InboxSessionRow): void {
      db.insert(inboxSessions).values(row).run();
    },
    findSession(tokenHash: string): InboxSessionRow | undefined {
      return db.select().from(inboxSessions).where(eq(inboxSessions.tokenHash, tokenHash)).get();
    },
    deleteSession(tokenHash: string): void {
      db.delete(inboxSessions).where(eq(inboxSessions.tokenHash, tokenHash)).run();
    },
    /** inbox_sessions_account_idx */
    deleteExpiredSessions(accountId: string, now: number): void {
      db.delete(inboxSessions)
        .where(and(eq(inboxSessions.accountId, accountId), lt(inboxSessions.expiresAt, now)))
        .run();
    },
    /** One batch of removing the sessions, of any account, that expired at or before `now`, oldest first. */
    pruneExpiredSessions(now: number, afterRowid: number, limit: number): PruneBatch {
      return pruneExpiredSessions(now, afterRowid, limit);
    },
    /** The status histories of these messages, each in arrival order (status_events_handle_idx). */
    histories(handles: readonly string[]): StatusEventRow[] {
      if (handles.length === 0) return [];
      return db
        .select()
        .from(statusEvents)
        .where(inArray(statusEvents.messageHandle, [...handles]))
        .orderBy(asc(statusEvents.messageHandle), asc(statusEvents.receivedAt), sql`rowid`)
        .all();
    },
  };
}
