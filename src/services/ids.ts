import { createHash, randomFillSync } from 'node:crypto';

/** Random bytes drawn 4 KiB at a time, as node's own randomUUID does: one draw per id is a system call per id. */
const ENTROPY_POOL_BYTES = 4096;
const entropy = Buffer.allocUnsafe(ENTROPY_POOL_BYTES);
let entropyUsed = ENTROPY_POOL_BYTES;

/**
 * A UUID version 7 (RFC 9562): 48 bits of Unix milliseconds, then 74 random bits, in the usual
 * lower-case form. Ids made close in time sort together, so each new row's index entry (message
 * handles, event and delivery ids, contact ids) lands on the same few B-tree pages instead of a
 * random one: at a million messages, a random id costs an uncached page read, a page written to
 * the WAL and later to the file, per index, per row.
 */
export function timeOrderedUuid(now: number = Date.now()): string {
  if (entropyUsed === ENTROPY_POOL_BYTES) {
    randomFillSync(entropy);
    entropyUsed = 0;
  }
  // Each 16 bytes of the pool are used once: stamping them in place is safe.
  const bytes = entropy.subarray(entropyUsed, entropyUsed + 16);
  entropyUsed += 16;
  bytes.writeUIntBE(now, 0, 6);
  bytes[6] = 0x70 | (bytes[6]! & 0x0f); // version 7
  bytes[8] = 0x80 | (bytes[8]! & 0x3f); // variant 10
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** A delivery's `webhook-id`, the same on every attempt so receivers can drop repeats. */
export function newWebhookId(): string {
  return `msg_${timeOrderedUuid().replaceAll('-', '')}`;
}

/** A line's stable id (the public service's `worker_id`): derived from its number, so every instance and process agrees. */
export function workerIdOf(number: string): string {
  return `wrk_${createHash('sha256').update(number).digest('hex').slice(0, 16)}`;
}
