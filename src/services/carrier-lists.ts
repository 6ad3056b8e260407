import { z } from 'zod';
import type { CarrierName } from '../domain/carriers.ts';
import { parseJson } from '../domain/lenient-json.ts';
import type { ServiceDeps } from './deps.ts';

type ListDeps = Pick<ServiceDeps, 'store' | 'clock'>;

/**
 * A list a carrier keeps as one JSON value in `carrier_state` (its problems, its missing
 * attachments): read whole, and changed by one writer at a time in this process, since a change
 * reads the value and writes it back. A value that no longer parses reads as an empty list.
 */
export function carrierList<T>(carrier: CarrierName, key: string, item: z.ZodType<T>) {
  const schema = z.array(item);
  let writing: Promise<unknown> = Promise.resolve();

  async function read(deps: Pick<ServiceDeps, 'store'>): Promise<T[]> {
    const value = await deps.store.carrierState.get(carrier, key);
    if (value === undefined) return [];
    const parsed = schema.safeParse(parseJson(value));
    return parsed.success ? parsed.data : [];
  }

  return {
    read,
    /** Writes what `edit` makes of the list, after the changes before it; `undefined` leaves it as it is. */
    change(deps: ListDeps, edit: (items: T[]) => Promise<T[] | undefined> | T[] | undefined): Promise<void> {
      const next = writing
        .catch(() => undefined)
        .then(async () => {
          const changed = await edit(await read(deps));
          if (changed !== undefined) await deps.store.carrierState.set(carrier, key, JSON.stringify(changed), deps.clock.now());
        });
      writing = next;
      return next;
    },
  };
}
