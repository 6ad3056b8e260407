import { and, eq, exists, lte, sql, sum } from 'drizzle-orm';
import type { PruneBatch } from '../../prune-batch.ts';
import { groups, mediaObjects } from '../../schema.ts';
import type { Db } from '../connection.ts';

export type MediaObjectRow = typeof mediaObjects.$inferSelect;

/** Stored media objects: uploads and group photos, served by id without credentials. */
export function mediaQueries(db: Db) {
  // Every GET /media/{id} runs it: prepared once.
  const byId = db
    .select()
    .from(mediaObjects)
    .where(eq(mediaObjects.id, sql.placeholder('id')))
    .prepare();

  return {
    insert(row: MediaObjectRow): void {
      db.insert(mediaObjects).values(row).run();
    },
    /** A relayed object the provider named before (the same id answered twice) is kept as it was. */
    insertIfNew(row: MediaObjectRow): void {
      db.insert(mediaObjects).values(row).onConflictDoNothing().run();
    },
    findById(id: string): MediaObjectRow | undefined {
      return byId.get({ id });
    },
    /** The bytes the account stores, for a check before adding some (PostgreSQL locks the account's quota; SQLite's writes never overlap). */
    storedBytesForUpdate(accountId: string): number {
      return (
        db
          .select({ total: sum(mediaObjects.byteLength).mapWith(Number) })
          .from(mediaObjects)
          .where(eq(mediaObjects.accountId, accountId))
          .get()?.total ?? 0
      );
    },
    /**
     * One batch of removing at most `limit` files created at or before `until`, but not a group's
     * photo. Removed rows are gone, so each batch starts over from what is left (`afterRowid`
     * is not read); `resumeAfter` says whether another batch may find more.
     */
    pruneCreatedBy(until: number, afterRowid: number, limit: number): PruneBatch {
      const expired = db
        .select({ id: mediaObjects.id })
        .from(mediaObjects)
        .where(
          and(
            lte(mediaObjects.createdAt, until),
            sql`not ${exists(db.select({ one: sql`1` }).from(groups).where(eq(groups.photoMediaId, mediaObjects.id)))}`,
          ),
        )
        .limit(limit);
      const removed = db.delete(mediaObjects).where(sql`${mediaObjects.id} in ${expired}`).run().changes;
      return { pruned: removed, resumeAfter: removed < limit ? null : afterRowid };
    },
  };
}
