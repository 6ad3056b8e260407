import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** One migration of a folder's drizzle journal; `when` is what drizzle records as the migration's `created_at`. */
type JournalEntry = { tag: string; when: number };

function knownMigrations(migrationsFolder: string): JournalEntry[] {
  const journal = JSON.parse(readFileSync(join(migrationsFolder, 'meta', '_journal.json'), 'utf8')) as { entries: JournalEntry[] };
  return journal.entries;
}

/**
 * Why a database migrated by a textrelay this build does not know of (a newer version, or another
 * branch) is refused, in one line; undefined when it holds only known migrations. drizzle applies
 * only migrations newer than the database's last one, so without this check such a database is
 * served as it is and fails later on tables or columns this build does not expect.
 *
 * `database` names it for a person; `appliedTimes` are the `created_at` values of drizzle's record.
 */
export function unknownMigrationsRefusal(
  database: string,
  appliedTimes: number[],
  migrationsFolder: string,
  other: 'file' | 'database',
): string | undefined {
  const known = knownMigrations(migrationsFolder);
  const knownTimes = new Set(known.map((entry) => Number(entry.when)));
  const unknown = appliedTimes.filter((time) => !knownTimes.has(time)).sort((a, b) => a - b);
  const newest = unknown.at(-1);
  if (newest === undefined) return undefined;
  const latestKnown = known.at(-1)!;
  const by = newest > latestKnown.when ? 'a newer textrelay' : 'a different build of textrelay';
  return (
    `${database} was written by ${by} (its schema has ${unknown.length} migration(s) this version does not know, ` +
    `the latest made ${new Date(newest).toISOString()}; this version knows up to ${latestKnown.tag}); upgrade textrelay or use another ${other}`
  );
}
