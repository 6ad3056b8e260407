import type { Db } from '../../src/db/sqlite/connection.ts';

/**
 * Ways to stop the live connection's writes and to let them through again. Tests run as root, for
 * whom chmod does not make a file read-only, so the faults are made in SQLite itself: the errors
 * the service sees are the ones a full disk (SQLITE_FULL) or a read-only file (SQLITE_READONLY)
 * raise.
 */
export type StorageFault = {
  name: string;
  break: (db: Db) => void;
  heal: (db: Db) => void;
  /** Every write fails at once (a full disk still takes writes that fit in free pages). */
  refusesEveryWrite: boolean;
};

export const STORAGE_FAULTS: StorageFault[] = [
  {
    name: 'a full disk',
    break(db) {
      // No free pages left inside the file, and the file may not grow.
      db.$client.exec('VACUUM');
      const pages = db.$client.pragma('page_count', { simple: true }) as number;
      db.$client.pragma(`max_page_count = ${pages}`);
    },
    heal(db) {
      db.$client.pragma('max_page_count = 4294967294');
    },
    refusesEveryWrite: false,
  },
  {
    name: 'a read-only database',
    break(db) {
      db.$client.pragma('query_only = ON');
    },
    heal(db) {
      db.$client.pragma('query_only = OFF');
    },
    refusesEveryWrite: true,
  },
];
