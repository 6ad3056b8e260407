import type { AccountRow } from '../db/rows.ts';
import { toIso } from '../domain/dates.ts';
import { type LineState, toLineState } from '../domain/line-state.ts';
import { sandboxBehaviour } from '../domain/sandbox-numbers.ts';
import type { LookupService } from './carrier-directory.ts';
import type { ServiceDeps } from './deps.ts';
import { lineProblem } from './line-carriers.ts';
import type { ProviderAccounts, ProviderAnswer } from './provider.ts';

/**
 * A carrier's answer, only through a carrier that carries one of the account's lines: the carrier
 * acts for its line's owner (the Mac asks Apple on the owner's Apple ID). A kept answer costs
 * nothing; asking the carrier counts against the account's lookup limit (429 past it).
 */
async function carrierLookup(deps: ServiceDeps, account: AccountRow, number: string): Promise<LookupService | undefined> {
  const { carriers } = deps;
  if (!carriers) return undefined;
  const own = new Set((await deps.store.lines.ofAccount(account.id)).map((line) => line.carrier));
  for (const name of own) {
    if (name === null || !carriers.canLookUp(name)) continue;
    const kept = carriers.keptLookup(name, number, deps.clock.now());
    if (kept) return kept;
    await deps.lookupRateLimiter.consume(`lookups:${account.id}`);
    const service = await carriers.lookup(name, number, deps.clock.now());
    if (service) return service;
  }
  return undefined;
}

/**
 * lookups.lookupNumber: which service a number is reached by. The sandbox's SMS-only test number
 * (555-0102) answers SMS, any other number iMessage; in relay mode the provider knows; the carrier
 * of one of the account's lines, when it can tell (BlueBubbles with its Private API).
 */
export async function lookupNumber(
  deps: ServiceDeps,
  account: AccountRow,
  number: string,
): Promise<{ number: string; service: LookupService } | ProviderAnswer> {
  if (deps.providers) return deps.providers.of(account).call({ method: 'GET', path: '/api/evaluate-service', query: { number } });
  const service = await carrierLookup(deps, account, number);
  if (service) return { number, service };
  return { number, service: sandboxBehaviour(number) === 'sms' ? 'SMS' : 'iMessage' };
}

type CarrierLineState = LineState & {
  carrier?: { name: string; reachable: boolean | null; last_error: string | null; sends: number; events: number };
};

/**
 * Each line as textrelay knows it; a line bound to a configured carrier also shows that carrier
 * (its reachability, shared by every account, beside the line's own last error and counts), and is
 * OFFLINE while it is unreachable; a line this instance cannot serve is OFFLINE with its reason.
 */
async function localLineStates(deps: ServiceDeps, account: AccountRow): Promise<CarrierLineState[]> {
  return (await deps.store.lines.ofAccount(account.id)).map((line) => {
    const problem = lineProblem(deps, line, account.email);
    const carrier = line.carrier === null ? undefined : deps.carriers?.get(line.carrier);
    const health = carrier?.health(line.number);
    const isOffline = problem !== undefined || health?.reachable === false;
    const statusChangedAt = deps.carriers?.active()
      ? deps.carriers.statusChangedAt(line.number, isOffline, line.createdAt, carrier?.health().lastErrorAt)
      : undefined;
    const state = toLineState({ ...line, statusChangedAt }, problem);
    if (!health) return state;
    return {
      ...state,
      status: isOffline ? ('OFFLINE' as const) : state.status,
      carrier: {
        name: health.carrier,
        reachable: health.reachable,
        last_error: health.lastError,
        sends: health.sends,
        events: health.events,
      },
    };
  });
}

/** The provider's states of this account's lines only: an old relay's tenants may still share one provider account. */
async function providerLineStates(deps: ServiceDeps, account: AccountRow, providers: ProviderAccounts) {
  const own = new Set(await deps.store.accounts.listServiceNumbers(account.id));
  try {
    const answer = await providers.of(account).call({ method: 'GET', path: '/api/v2/lines/state' });
    const data = (answer.body as { data?: unknown } | null)?.data;
    if (answer.ok && Array.isArray(data)) {
      return data.filter(
        (line: { sendblue_number?: unknown }) => typeof line?.sendblue_number === 'string' && own.has(line.sendblue_number),
      );
    }
    deps.log.warn({ status: answer.status }, 'the provider did not answer line states; answering from local records');
  } catch (error) {
    deps.log.warn({ err: error }, 'asking the provider for line states failed; answering from local records');
  }
  return localLineStates(deps, account);
}

/** lines.getState: each of the account's lines and its state. */
export async function lineStates(deps: ServiceDeps, account: AccountRow) {
  const snapshotAt = toIso(deps.clock.now());
  const data = deps.providers ? await providerLineStates(deps, account, deps.providers) : await localLineStates(deps, account);
  return { status: 'OK' as const, snapshot_at: snapshotAt, data };
}
