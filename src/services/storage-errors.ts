/**
 * Whether an error is the storage refusing work (busy, unwritable, damaged) rather than the request:
 * the HTTP layer answers 503 and background work retries later instead of failing a message. Which
 * driver codes mean what is the store's to know.
 */
export { type StorageTrouble, storageTrouble } from '../db/sqlite/sqlite-codes.ts';
