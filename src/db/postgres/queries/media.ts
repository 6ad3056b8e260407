import { and, eq, exists, lte, sql, sum } from 'drizzle-orm';
import type { PruneBatch } from '../../prune-batch.ts';
import type { MediaObjectRow } from '../../sqlite/queries/media.ts';
import type { PgDb } from '../db.ts';
import { lockQuota } from '../quota-lock.ts';
import { groups, mediaObjects } from '../schema.ts';

/** Stored media objects: uploads and group photos, served by id without credentials. */
export function mediaQueries(db: PgDb) {
  return {
    async insert(row: MediaObjectRow): Promise<void> {
      await db.insert(mediaObjects).values(row);
    },
    /** A relayed object the provider named before (the same id answered twice) is kept as it was. */
    async insertIfNew(row: MediaObjectRow): Promise<void> {
      await db.insert(mediaObjects).values(row).onConflictDoNothing();
    },
    async findById(id: string): Promise<MediaObjectRow | undefined> {
      const [row] = await db.select().from(mediaObjects).where(eq(mediaObjects.id, id));
      return row;
    },
    /** The bytes the account stores, under the account's media quota lock, held until the transaction ends. */
    async storedBytesForUpdate(accountId: string): Promise<number> {
      await lockQuota(db, 'media', accountId);
      const [row] = await db
        .select({ total: sum(mediaObjects.byteLength).mapWith(Number) })
        .from(mediaObjects)
        .where(eq(mediaObjects.accountId, accountId));
      return row?.total ?? 0;
    },
    /** One batch of removing at most `limit` files created at or before `until`, but not a group's photo (see the SQLite twin). */
    async pruneCreatedBy(until: number, afterRowid: number, limit: number): Promise<PruneBatch> {
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
      const result = await db.delete(mediaObjects).where(sql`${mediaObjects.id} in ${expired}`);
      return { pruned: result.count, resumeAfter: result.count < limit ? null : afterRowid };
    },
  };
}
