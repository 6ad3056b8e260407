import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { StartupError } from '../startup-error.ts';
import type { Db } from './connection.ts';
import { databaseFiles } from './database-files.ts';

type JournalEntry = { tag: string; when: number };

/** drizzle's record of the migrations applied to a file: one row per migration, `created_at` being the journal's `when`. */
const MIGRATIONS_TABLE = '__drizzle_migrations';

function knownMigrations(): JournalEntry[] {
  const journal = JSON.parse(readFileSync(join(databaseFiles().migrationsFolder, 'meta', '_journal.json'), 'utf8')) as {
    entries: JournalEntry[];
  };
  return journal.entries;
}

/**
 * Refuses a file migrated by a textrelay this build does not know of (a newer version, or another
 * branch). drizzle applies only migrations newer than the file's last one, so without this check
 * such a file is served as it is and fails later on tables or columns this build does not expect.
 */
export function refuseUnknownMigrations(db: Db, file: string): void {
  const client = db.$client;
  const hasTable = client.prepare("select 1 from sqlite_master where type = 'table' and name = ?").get(MIGRATIONS_TABLE);
  if (!hasTable) return;
  const applied = client.prepare(`select created_at as createdAt from "${MIGRATIONS_TABLE}" order by created_at`).all() as {
    createdAt: number;
  }[];
  const known = knownMigrations();
  const knownTimes = new Set(known.map((entry) => Number(entry.when)));
  const unknown = applied.filter((row) => !knownTimes.has(Number(row.createdAt)));
  if (unknown.length === 0) return;
  const latestKnown = known.at(-1)!;
  const newest = unknown.at(-1)!;
  const migrated = new Date(Number(newest.createdAt)).toISOString();
  const by = Number(newest.createdAt) > latestKnown.when ? 'a newer textrelay' : 'a different build of textrelay';
  throw new StartupError(
    `${file} was written by ${by} (its schema has ${unknown.length} migration(s) this version does not know, the latest made ${migrated}; ` +
      `this version knows up to ${latestKnown.tag}); upgrade textrelay or use another file`,
  );
}
