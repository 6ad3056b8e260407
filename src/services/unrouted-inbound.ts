import type { ServiceDeps } from './deps.ts';
import { pruneInBatches } from './pruning.ts';

/** Drops, batch by batch, the unrouted inbound messages received at or before `until`: the operator has had them that long. */
export function pruneUnroutedInbound(deps: ServiceDeps, until: number): AsyncGenerator<number, void, void> {
  return pruneInBatches(async (afterRowid, limit) => await deps.store.unrouted.pruneReceivedBy(until, afterRowid, limit));
}
