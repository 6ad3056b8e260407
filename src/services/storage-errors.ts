/** The storage refusing work rather than the request: answered 503 by the HTTP layer, retried later by background work. */
export { type StorageTrouble, storageTrouble } from '../db/storage-trouble.ts';
