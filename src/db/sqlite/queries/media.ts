import { eq, sql } from 'drizzle-orm';
import { mediaObjects } from '../../schema.ts';
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
  };
}
