import { DrizzleQueryError } from 'drizzle-orm/errors';
import postgres from 'postgres';
import type { StorageTrouble } from '../storage-trouble-kind.ts';

/** PostgreSQL's error code, or postgres.js's for a connection it lost: drizzle wraps a failed query's error (as `cause`). */
export function postgresCode(error: unknown): string | undefined {
  const { code, cause } = (error ?? {}) as { code?: unknown; cause?: { code?: unknown } };
  const found = code ?? cause?.code;
  return typeof found === 'string' ? found : undefined;
}

/** postgres.js's own names for a connection it could not open or lost. */
const DRIVER_CONNECTION_CODES = new Set(['CONNECT_TIMEOUT', 'CONNECTION_CLOSED', 'CONNECTION_ENDED', 'CONNECTION_DESTROYED']);

/**
 * The code of an error the database driver raised, or undefined for anyone else's: a network error
 * of a webhook POST carries ECONNREFUSED too, and must not be taken for the database being down.
 */
function driverCode(error: unknown): string | undefined {
  const raised = error instanceof DrizzleQueryError ? error.cause : error;
  if (raised instanceof postgres.PostgresError) return raised.code;
  const code = postgresCode(raised);
  if (code === undefined) return undefined;
  // postgres.js marks every error of a query it ran with the query's text.
  return DRIVER_CONNECTION_CODES.has(code) || (typeof raised === 'object' && raised !== null && 'query' in raised) ? code : undefined;
}

/** The server is there but cannot take the work now: contention, full of connections, too slow. */
const BUSY = new Set([
  '40001', // serialization failure, after the store's retries
  '40P01', // deadlock, after the store's retries
  '55P03', // lock not available
  '57014', // statement timeout
  '53300', // too many connections
  '53400',
]);
/** The server cannot be reached: stopped, restarting, or the network between us (08xxx too). */
const UNAVAILABLE = new Set([
  '57P01', // the server is shutting down
  '57P02',
  '57P03', // the server is starting up
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  ...DRIVER_CONNECTION_CODES,
]);
/** The server refuses writes: its disk is full, or it is a read-only standby. */
const UNWRITABLE = new Set(['53100', '25006']);
const DAMAGED = new Set(['XX001', 'XX002']);

/** What kind of storage trouble a PostgreSQL error is, or undefined when it is not one (a bug, a constraint, ...). */
export function postgresStorageTrouble(error: unknown): StorageTrouble | undefined {
  const code = driverCode(error);
  if (code === undefined) return undefined;
  if (UNAVAILABLE.has(code) || code.startsWith('08')) return 'unavailable';
  if (BUSY.has(code)) return 'busy';
  if (UNWRITABLE.has(code)) return 'unwritable';
  return DAMAGED.has(code) ? 'damaged' : undefined;
}
