import type { AccountRow } from '../db/rows.ts';
import { CARRIER_PROFILES, type CarrierName, isCarrierName, type LineAbility } from '../domain/carriers.ts';
import { ErrorCode } from '../domain/error-codes.ts';
import { AppError } from './app-error.ts';
import type { CarrierLineActions } from './carrier-directory.ts';
import type { ServiceDeps } from './deps.ts';

/** The carrier a line is bound to; undefined for a line with none (sandbox, relay) or no such line. */
export async function carrierOfLine(deps: ServiceDeps, lineNumber: string): Promise<CarrierName | undefined> {
  const carrier = await deps.store.lines.carrierOf(lineNumber);
  return carrier !== null && carrier !== undefined && isCarrierName(carrier) ? carrier : undefined;
}

/** What the carrier delivering a line makes itself (group changes, typing); undefined with the sandbox, the relay, or a carrier that cannot. */
export async function lineActionsOf(deps: ServiceDeps, lineNumber: string): Promise<CarrierLineActions | undefined> {
  if (!deps.carriers) return undefined;
  return deps.carriers.forLine(await carrierOfLine(deps, lineNumber))?.actions;
}

const ABILITY_WORDS: Record<LineAbility, string> = {
  groups: 'group messages',
  typing: 'typing indicators',
  reactions: 'reactions',
};

/**
 * Refuses (400, 4000) what the carriers of the account's lines cannot do, before anything is
 * written: `line` when the request names one, else the account's lines, one of which must be able to.
 */
export async function requireLineAbility(deps: ServiceDeps, account: AccountRow, ability: LineAbility, line?: string): Promise<void> {
  const lines = line === undefined ? await deps.store.accounts.listServiceNumbers(account.id) : [line];
  const unable: string[] = [];
  for (const number of lines) {
    const carrier = await carrierOfLine(deps, number);
    if (carrier === undefined || CARRIER_PROFILES[carrier].can[ability]) return;
    unable.push(`${number} is delivered by ${CARRIER_PROFILES[carrier].label}`);
  }
  if (unable.length === 0) return;
  throw new AppError(ErrorCode.validation, `${unable.join('; ')}, which cannot carry ${ABILITY_WORDS[ability]}`);
}
