import type { AccountRow } from '../db/rows.ts';
import { ErrorCode } from '../domain/error-codes.ts';
import { AppError } from './app-error.ts';
import type { ServiceDeps } from './deps.ts';

/** Checks a client-chosen from_number against the account's lines. */
export async function requireOwnLine(deps: ServiceDeps, account: AccountRow, fromNumber: string): Promise<string> {
  if (!(await deps.store.accounts.listServiceNumbers(account.id)).includes(fromNumber)) {
    throw new AppError(ErrorCode.validation, `from_number ${fromNumber} is not one of this account's numbers`);
  }
  return fromNumber;
}

export async function leastLoadedLine(deps: ServiceDeps, account: AccountRow): Promise<string> {
  const line = await deps.store.accounts.leastLoadedLine(account.id);
  if (!line) throw new AppError(ErrorCode.internal, `Account ${account.email} has no service numbers`);
  return line;
}

/**
 * The line an end user talks to: the one they were pinned to, else (first contact) the account's
 * least-loaded line, or the client's explicit choice, which then becomes their pin. Call inside
 * the sending transaction so two first messages cannot pin one person twice. `pin`: the person's
 * pin as the caller read it in this transaction already.
 */
export async function lineForEndUser(
  deps: ServiceDeps,
  account: AccountRow,
  endUserNumber: string,
  requestedLine: string | undefined,
  now: number,
  pin?: { line: string | undefined },
): Promise<string> {
  const explicit = requestedLine === undefined ? undefined : await requireOwnLine(deps, account, requestedLine);
  const pinned = pin ? pin.line : await deps.store.accounts.findPinnedLine(account.id, endUserNumber);
  if (pinned) return explicit ?? pinned;
  const line = explicit ?? (await leastLoadedLine(deps, account));
  await deps.store.accounts.pinEndUser(account.id, endUserNumber, line, now);
  return line;
}
