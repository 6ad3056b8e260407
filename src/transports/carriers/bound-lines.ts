import type { CarrierName } from '../../domain/carriers.ts';
import type { ServiceDeps } from '../../services/deps.ts';

/** The lines bound to a carrier (a line bound to none is never sent through a real carrier). */
export async function linesBoundTo(deps: Pick<ServiceDeps, 'store'>, carrier: CarrierName): Promise<string[]> {
  return (await deps.store.lines.all()).filter((line) => line.carrier === carrier).map((line) => line.number);
}
