/** busy and unwritable pass on their own; damaged (corrupt pages) lasts until the database is restored. */
export type StorageTrouble = 'busy' | 'unwritable' | 'damaged';
