import { eq } from 'drizzle-orm';
import type { MediaObjectRow } from '../../sqlite/queries/media.ts';
import type { PgDb } from '../db.ts';
import { mediaObjects } from '../schema.ts';

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
  };
}
