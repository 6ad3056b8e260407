import type { Db } from '../connection.ts';

/** Whether another connection (a CLI command, another process) committed to the file since this one last looked. */
export function dataVersionQueries(db: Db) {
  const read = db.$client.prepare('pragma data_version').pluck();
  return {
    /** Changes whenever another connection commits to the database; this connection's own commits leave it as it is. */
    current(): number {
      return read.get() as number;
    },
  };
}
