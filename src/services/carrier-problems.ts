import { z } from 'zod';
import { CARRIERS, type CarrierName } from '../domain/carriers.ts';
import type { ServiceDeps } from './deps.ts';

/** Where a carrier keeps its latest item problems in `carrier_state`. */
const PROBLEMS_KEY = 'item_problems';
/** The latest problems kept per carrier: enough to act on, never a growing log. */
const KEPT = 50;

const Problem = z.object({
  at: z.number(),
  /** The carrier's id of the item (a BlueBubbles message guid). */
  item: z.string(),
  /** The account the item belongs to, when its line has an owner. */
  accountId: z.string().nullable(),
  /** What could not be recorded and why, in words a tenant may read. */
  what: z.string(),
});

/** A carrier item (a message, one of its attachments) textrelay could not record in full. */
export type CarrierProblem = z.output<typeof Problem>;

const writing = new Map<string, Promise<unknown>>();

async function kept(deps: Pick<ServiceDeps, 'store'>, carrier: CarrierName): Promise<CarrierProblem[]> {
  const value = await deps.store.carrierState.get(carrier, PROBLEMS_KEY);
  if (value === undefined) return [];
  try {
    const parsed = z.array(Problem).safeParse(JSON.parse(value));
    return parsed.success ? parsed.data : [];
  } catch {
    return [];
  }
}

/**
 * Writes down that a carrier item could not be recorded in full (the same item and words again
 * only move it to the front), for `textrelay status` and the account's inbox.
 */
export async function recordCarrierProblem(
  deps: Pick<ServiceDeps, 'store' | 'clock'>,
  carrier: CarrierName,
  problem: Omit<CarrierProblem, 'at'>,
): Promise<void> {
  // One writer at a time per carrier: the list is one value, read and written back.
  const previous = writing.get(carrier) ?? Promise.resolve();
  const next = previous
    .catch(() => undefined)
    .then(async () => {
      const now = deps.clock.now();
      const others = (await kept(deps, carrier)).filter((old) => old.item !== problem.item || old.what !== problem.what);
      const problems = [{ ...problem, at: now }, ...others].slice(0, KEPT);
      await deps.store.carrierState.set(carrier, PROBLEMS_KEY, JSON.stringify(problems), now);
    });
  writing.set(carrier, next);
  await next;
}

/** Every carrier's latest problems, newest first. */
export async function carrierProblems(deps: Pick<ServiceDeps, 'store'>): Promise<(CarrierProblem & { carrier: CarrierName })[]> {
  const all = await Promise.all(CARRIERS.map(async (carrier) => (await kept(deps, carrier)).map((problem) => ({ ...problem, carrier }))));
  return all.flat().sort((a, b) => b.at - a.at);
}

/** The latest problems with the account's own items, newest first. */
export async function accountCarrierProblems(deps: Pick<ServiceDeps, 'store'>, accountId: string): Promise<CarrierProblem[]> {
  return (await carrierProblems(deps)).filter((problem) => problem.accountId === accountId);
}
