import { z } from 'zod';
import { CARRIERS, type CarrierName } from '../domain/carriers.ts';
import { carrierList } from './carrier-lists.ts';
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

/** Each carrier's list, made once: its writes take turns. */
const lists = new Map(CARRIERS.map((carrier) => [carrier, carrierList(carrier, PROBLEMS_KEY, Problem)]));
const listOf = (carrier: CarrierName) => lists.get(carrier)!;

/**
 * Writes down that a carrier item could not be recorded in full (the same item and words again
 * only move it to the front), for `textrelay status` and the account's inbox.
 */
export async function recordCarrierProblem(
  deps: Pick<ServiceDeps, 'store' | 'clock'>,
  carrier: CarrierName,
  problem: Omit<CarrierProblem, 'at'>,
): Promise<void> {
  const at = deps.clock.now();
  await change(deps, carrier, (problems) => [
    { ...problem, at },
    ...problems.filter((old) => old.item !== problem.item || old.what !== problem.what),
  ]);
}

function change(deps: Pick<ServiceDeps, 'store' | 'clock'>, carrier: CarrierName, edit: (problems: CarrierProblem[]) => CarrierProblem[]) {
  return listOf(carrier).change(deps, (problems) => edit(problems).slice(0, KEPT));
}

/** The carrier's problems with these items, once they have been recorded after all. */
export async function resolveCarrierProblems(
  deps: Pick<ServiceDeps, 'store' | 'clock'>,
  carrier: CarrierName,
  items: ReadonlySet<string>,
): Promise<void> {
  if (items.size === 0) return;
  await change(deps, carrier, (problems) => problems.filter((problem) => !items.has(problem.item)));
}

/** The items the carrier has problems with now. */
export async function itemsWithProblems(deps: Pick<ServiceDeps, 'store'>, carrier: CarrierName): Promise<Set<string>> {
  return new Set((await listOf(carrier).read(deps)).map((problem) => problem.item));
}

/** Every carrier's latest problems, newest first. */
export async function carrierProblems(deps: Pick<ServiceDeps, 'store'>): Promise<(CarrierProblem & { carrier: CarrierName })[]> {
  const all = await Promise.all(
    CARRIERS.map(async (carrier) => (await listOf(carrier).read(deps)).map((problem) => ({ ...problem, carrier }))),
  );
  return all.flat().sort((a, b) => b.at - a.at);
}

/** The latest problems with the account's own items, newest first. */
export async function accountCarrierProblems(deps: Pick<ServiceDeps, 'store'>, accountId: string): Promise<CarrierProblem[]> {
  return (await carrierProblems(deps)).filter((problem) => problem.accountId === accountId);
}
