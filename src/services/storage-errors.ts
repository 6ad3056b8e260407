import { storageTrouble } from '../db/storage-trouble.ts';

/** The storage refusing work rather than the request: answered 503 by the HTTP layer, retried later by background work. */
export { type StorageTrouble, storageTrouble, storageTroubleReason } from '../db/storage-trouble.ts';

/** The database cannot be reached: its outage is logged once by the health watch, so background work that fails in it logs nothing more. */
export function isOutage(error: unknown): boolean {
  return storageTrouble(error) === 'unavailable';
}
