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
 * the sending transaction so two first messages cannot pin one person twice.
 */
export async function lineForEndUser(
  deps: ServiceDeps,
  account: AccountRow,
  endUserNumber: string,
  requestedLine: string | undefined,
  now: number,
): Promise<string> {
  const { line, newPin } = await chooseLineForEndUser(deps, account, endUserNumber, requestedLine);
  if (newPin) await deps.store.accounts.pinEndUser(account.id, endUserNumber, line, now);
  return line;
}

/**
 * lineForEndUser without writing the pin: the line, and whether it is to become the person's pin
 * (for a whole write to write). `pin`: the person's pin as the caller read it in this transaction already.
 */
export async function chooseLineForEndUser(
  deps: ServiceDeps,
  account: AccountRow,
  endUserNumber: string,
  requestedLine: string | undefined,
  pin?: { line: string | undefined },
): Promise<{ line: string; newPin: boolean }> {
  const explicit = requestedLine === undefined ? undefined : await requireOwnLine(deps, account, requestedLine);
  const pinned = pin ? pin.line : await deps.store.accounts.findPinnedLine(account.id, endUserNumber);
  if (pinned) return { line: explicit ?? pinned, newPin: false };
  return { line: explicit ?? (await leastLoadedLine(deps, account)), newPin: true };
}
