import type { ServiceDeps } from './deps.ts';
import { pruneInBatches } from './pruning.ts';

/**
 * Drops, batch by batch, the status events received at or before `until` for a handle no message
 * took: a hand-over that never came (or a stray report) would otherwise keep them for good.
 */
export function pruneOrphanEvents(deps: ServiceDeps, until: number): AsyncGenerator<number, void, void> {
  return pruneInBatches(async (afterRowid, limit) => await deps.store.orphans.pruneReceivedBy(until, afterRowid, limit));
}
