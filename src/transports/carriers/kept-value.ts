import type { CarrierName } from '../../domain/carriers.ts';
import type { ServiceDeps } from '../../services/deps.ts';

/**
 * A value a carrier makes once and keeps in the database (a webhook URL's secret, the tag of this
 * installation's webhooks), so every start, of any instance, uses the same.
 */
export async function keptOnce(deps: ServiceDeps, carrier: CarrierName, key: string, make: () => string): Promise<string> {
  const kept = await deps.store.carrierState.get(carrier, key);
  if (kept) return kept;
  const made = make();
  await deps.store.carrierState.set(carrier, key, made, deps.clock.now());
  return (await deps.store.carrierState.get(carrier, key)) ?? made;
}
