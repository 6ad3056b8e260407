import { asc, getTableColumns, type SQL } from 'drizzle-orm';
import { statusEvents } from '../schema.ts';

/** A message's status events in arrival order: by time, then insertion order (SQLite's rowid). */
export const arrivalOrder: SQL[] = [asc(statusEvents.receivedAt), asc(statusEvents.seq)];

const { seq: _seq, writtenBy: _writtenBy, ...rowColumns } = getTableColumns(statusEvents);

/** The columns of a status event row as SQLite hands it up: without PostgreSQL's ordering columns. */
export const statusEventRowColumns = rowColumns;
