/**
 * busy (contention, timeouts), unavailable (the database server cannot be reached) and unwritable
 * pass on their own; damaged (corrupt pages) lasts until the database is restored.
 */
export type StorageTrouble = 'busy' | 'unavailable' | 'unwritable' | 'damaged';
