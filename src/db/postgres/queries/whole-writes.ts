import type { MessageRow } from '../../rows.ts';
import type { SendWrite, StatusStepWrite } from '../../sqlite/queries/whole-writes.ts';
import type { PgDb } from '../db.ts';
import { sendMany } from './sends-many.ts';
import { statusStepMany } from './status-steps-many.ts';

/**
 * The PostgreSQL twin of ../../sqlite/queries/whole-writes.ts: a batch of whole writes of one kind
 * is one statement, set-based, its parts data-modifying CTEs over the writes' values passed as
 * arrays; its text is the same for every batch, so it is built once and prepared once per
 * connection. A write alone is a batch of one. Each write sees the database as before the
 * statement: the caller never batches writes that would see each other's rows.
 */
export function wholeWriteQueries(db: PgDb) {
  return {
    sendMany: (calls: [SendWrite][]): Promise<MessageRow[]> => sendMany(db, calls),
    statusStepMany: (calls: [StatusStepWrite][]): Promise<boolean[]> => statusStepMany(db, calls),
    async send(write: SendWrite): Promise<MessageRow> {
      const [written] = await sendMany(db, [[write]]);
      return written!;
    },
    async statusStep(write: StatusStepWrite): Promise<boolean> {
      const [taken] = await statusStepMany(db, [[write]]);
      return taken!;
    },
  };
}
