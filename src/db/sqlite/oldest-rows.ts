import type { PruneBatch } from '../prune-batch.ts';
import type { Db } from './connection.ts';

/**
 * Removes, one transaction per call, the rows of `table` whose `timeColumn` is at or before
 * `until`, reading at most `limit` rows in rowid order after `afterRowid` and stopping at the first
 * row past `until`. Only for tables whose rows are inserted in the order of that column and never
 * change it: every row after the first one kept is kept too, so a pass never reads the rows it keeps.
 */
export function oldestRowsPruner(db: Db, table: string, timeColumn: string) {
  const client = db.$client;
  const oldest = client.prepare(
    `select rowid as row, ${timeColumn} as time from ${table} where rowid > @afterRowid order by rowid limit +@limit`,
  );
  const removeThrough = client.prepare(`delete from ${table} where rowid > @afterRowid and rowid <= @lastRowid`);
  const batch = client.transaction((until: number, afterRowid: number, limit: number): PruneBatch => {
    const rows = oldest.all({ afterRowid, limit }) as { row: number; time: number }[];
    const firstKept = rows.findIndex((row) => row.time > until);
    const removed = firstKept === -1 ? rows : rows.slice(0, firstKept);
    if (removed.length > 0) removeThrough.run({ afterRowid, lastRowid: removed.at(-1)!.row });
    const walkIsOver = firstKept !== -1 || rows.length < limit;
    return { pruned: removed.length, resumeAfter: walkIsOver ? null : rows.at(-1)!.row };
  });
  return (until: number, afterRowid: number, limit: number): PruneBatch => batch.immediate(until, afterRowid, limit);
}
