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

/** A line as the carriers' checks read it. */
type BoundLine = { number: string; carrier: string | null };

/**
 * Why this process cannot serve the line through a carrier, or undefined when it can (and always
 * with the sandbox and the relay, which serve every line): a line bound to no carrier is never
 * sent through a real one, whichever carriers TEXTRELAY_TRANSPORT names.
 */
export function lineProblem(deps: Pick<ServiceDeps, 'carriers'>, line: BoundLine, email = 'EMAIL'): string | undefined {
  if (!deps.carriers?.active()) return undefined;
  if (line.carrier === null || !deps.carriers.get(line.carrier)) return unconfiguredCarrierProblem(line.carrier, line.number, email);
  return deps.carriers.offlineReason(line.number);
}

/**
 * Why a line bound to `carrier` (null: none) is not served when that carrier is not configured; a
 * line bound to none is most often the quick start's sandbox line, so the sentence says what to do with it.
 */
export function unconfiguredCarrierProblem(carrier: string | null, number: string, email = 'EMAIL'): string {
  if (carrier === null) {
    return (
      'bound to no carrier (a sandbox line): with carriers configured only lines bound to one are served; ' +
      `remove it with \`textrelay accounts lines remove --email ${email} ${number} --force\` once the account has a carrier's line, ` +
      'or serve the carrier from a fresh database (--db)'
    );
  }
  const label = isCarrierName(carrier) ? CARRIER_PROFILES[carrier].label : carrier;
  return `bound to ${label}, which TEXTRELAY_TRANSPORT does not configure`;
}

/** Every line this process cannot serve, with its account's email and why: `textrelay status` lists them. */
export async function offlineLines(
  deps: Pick<ServiceDeps, 'store' | 'carriers'>,
): Promise<{ number: string; email: string; carrier: string | null; reason: string }[]> {
  const offline = [];
  for (const line of await deps.store.lines.all()) {
    if (lineProblem(deps, line) === undefined) continue;
    const email = (await deps.store.accounts.findById(line.accountId))?.email ?? line.accountId;
    const reason = lineProblem(deps, line, email)!;
    offline.push({ number: line.number, email, carrier: line.carrier, reason });
  }
  return offline;
}

/**
 * Refuses (409) numbers the carrier's account says it cannot serve, before they become lines;
 * a carrier that cannot tell (or one not configured here) lets them through.
 */
export async function refuseLinesTheCarrierLacks(deps: ServiceDeps, carrier: CarrierName, numbers: readonly string[]): Promise<void> {
  const refusal = await deps.carriers?.get(carrier)?.refuseLines?.(numbers);
  if (refusal !== undefined) throw new AppError(ErrorCode.conflict, refusal);
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
  media: 'media',
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
