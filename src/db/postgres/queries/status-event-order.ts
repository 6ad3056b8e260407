import { asc, type SQL, sql } from 'drizzle-orm';
import { MESSAGE_STATUSES } from '../../../domain/status.ts';
import { statusEvents } from '../schema.ts';

/**
 * A message's status events in arrival order. SQLite breaks ties within one millisecond by rowid;
 * status_events has no insertion column in PostgreSQL (its id is a UUIDv7, random within a
 * millisecond), so ties go by the status machine: a message only moves forward, so its applied
 * events of one millisecond (an implied SENT and the DELIVERED that implied it) arrived in status
 * order, and an event not applied came after the applied one that made it stale.
 */
export const arrivalOrder: SQL[] = [
  asc(statusEvents.receivedAt),
  sql`case when ${statusEvents.applied} then array_position(array[${sql.raw(MESSAGE_STATUSES.map((status) => `'${status}'`).join(','))}], ${statusEvents.status}) else ${sql.raw(String(MESSAGE_STATUSES.length + 1))} end`,
  asc(statusEvents.id),
];
