import { z } from 'zod';
import { CARRIERS, type CarrierName } from '../domain/carriers.ts';
import { parseJson } from '../domain/lenient-json.ts';
import type { CarrierHealth } from './carrier-directory.ts';
import type { ServiceDeps } from './deps.ts';

/** Where the serving process keeps each carrier's health in `carrier_state`, for `textrelay status`. */
const HEALTH_KEY = 'health';

const Report = z.object({
  carrier: z.enum(CARRIERS),
  reachable: z.boolean().nullable(),
  lastError: z.string().nullable(),
  lastErrorAt: z.number().nullable(),
  sends: z.number().int(),
  events: z.number().int(),
  reportedAt: z.number(),
});

/** A carrier's health as the serving process last wrote it down, and when. */
export type CarrierHealthReport = z.output<typeof Report>;

/** Writes down how a carrier is doing in the serving process, so other processes (textrelay status) can show it. */
export async function reportCarrierHealth(deps: Pick<ServiceDeps, 'store' | 'clock'>, health: CarrierHealth): Promise<void> {
  const now = deps.clock.now();
  await deps.store.carrierState.set(health.carrier, HEALTH_KEY, JSON.stringify({ ...health, reportedAt: now }), now);
}

/** The serving process's last report of a carrier's health; undefined before any serve process reported it. */
export async function lastCarrierHealthReport(
  deps: Pick<ServiceDeps, 'store'>,
  carrier: CarrierName,
): Promise<CarrierHealthReport | undefined> {
  const kept = await deps.store.carrierState.get(carrier, HEALTH_KEY);
  if (kept === undefined) return undefined;
  const parsed = Report.safeParse(parseJson(kept));
  return parsed.success ? parsed.data : undefined;
}
