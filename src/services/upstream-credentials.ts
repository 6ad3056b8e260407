/**
 * Relay mode: which provider account carries each account. A tenant has its own (set with
 * `accounts create --upstream-key-id` or `accounts upstream set`), else the relay's
 * (TEXTRELAY_UPSTREAM_KEY_ID). Two accounts on one provider account would share its contacts,
 * opt-outs and groups, so a second one is refused.
 */
import type { AccountRow } from '../db/rows.ts';
import { ErrorCode } from '../domain/error-codes.ts';
import { AppError } from './app-error.ts';
import type { ServiceDeps } from './deps.ts';
import type { ProviderCredentials } from './provider.ts';
import { inTransaction } from './transactions.ts';

type Holder = Pick<AccountRow, 'upstreamKeyId'>;

/** The key id of the account's provider account: its own, else the relay's in upstream mode; none in sandbox mode without its own. */
export function providerKeyOf(deps: Pick<ServiceDeps, 'providers'>, account: Holder): string | undefined {
  return account.upstreamKeyId ?? deps.providers?.relayKeyId;
}

/**
 * True when a report concerns an account on one of the provider accounts that signed it, or comes
 * from the operator (`reportedBy` unset): a provider account reports on its own tenants only.
 */
export function reportedByItsProvider(
  deps: Pick<ServiceDeps, 'providers'>,
  account: Holder,
  reportedBy: ReadonlySet<string> | undefined,
): boolean {
  if (reportedBy === undefined) return true;
  const keyId = providerKeyOf(deps, account);
  return keyId !== undefined && reportedBy.has(keyId);
}

function whose(deps: ServiceDeps, keyId: string): string {
  return keyId === deps.providers?.relayKeyId
    ? `the relay's provider account (TEXTRELAY_UPSTREAM_KEY_ID ${keyId})`
    : `provider account ${keyId}`;
}

/**
 * Refuses, before anything is written, to put `email` on the provider account `keyId` when another
 * account is on it already. Call inside the transaction that writes the credentials.
 */
export async function refuseSharedProviderAccount(deps: ServiceDeps, email: string, keyId: string | undefined): Promise<void> {
  if (keyId === undefined) return;
  const other = (await deps.store.accounts.list()).find((account) => account.email !== email && providerKeyOf(deps, account) === keyId);
  if (!other) return;
  throw new AppError(
    ErrorCode.conflict,
    `${email} cannot use ${whose(deps, keyId)}: ${other.email} is on it, and tenants on one provider account share its contacts, opt-outs and groups; give ${email} a provider account of its own (--upstream-key-id and --upstream-secret)`,
  );
}

/** `accounts upstream set`: the account's calls and messages go to the provider with these credentials from now on. */
export async function setUpstreamCredentials(
  deps: ServiceDeps,
  email: string,
  credentials: ProviderCredentials,
): Promise<{ email: string; upstream_key_id: string }> {
  const accountId = await inTransaction(deps, async (deps) => {
    const account = await deps.store.accounts.findByEmail(email);
    if (!account) throw new AppError(ErrorCode.notFound, `No account with email ${email}`);
    await refuseSharedProviderAccount(deps, email, credentials.keyId);
    if (!(await deps.store.accounts.setUpstreamCredentials(account.id, credentials.keyId, credentials.secret))) {
      throw new AppError(ErrorCode.conflict, `${email} cannot use provider account ${credentials.keyId}: another account is on it`);
    }
    return account.id;
  });
  deps.notify.accountActivity?.(accountId);
  return { email, upstream_key_id: credentials.keyId };
}

/** An account that shares its provider account with others, and who they are. */
export type SharedProviderAccount = { email: string; keyId: string; sharedWith: string[] };

/** Accounts that share a provider account (an old relay's tenants on the relay's credentials): each is warned about at start. */
export async function accountsSharingProviders(deps: ServiceDeps): Promise<SharedProviderAccount[]> {
  const byKey = new Map<string, string[]>();
  for (const account of await deps.store.accounts.list()) {
    const keyId = providerKeyOf(deps, account);
    if (keyId !== undefined) byKey.set(keyId, [...(byKey.get(keyId) ?? []), account.email]);
  }
  return [...byKey].flatMap(([keyId, emails]) =>
    emails.length < 2 ? [] : emails.map((email) => ({ email, keyId, sharedWith: emails.filter((other) => other !== email) })),
  );
}

/** The provider accounts the relay's tenants use: the relay's own first, then each distinct own one. */
export async function providerAccountsInUse(deps: ServiceDeps, relay: ProviderCredentials): Promise<ProviderCredentials[]> {
  const used = new Map([[relay.keyId, relay]]);
  for (const account of await deps.store.accounts.list()) {
    if (account.upstreamKeyId !== null && account.upstreamSecret !== null && !used.has(account.upstreamKeyId)) {
      used.set(account.upstreamKeyId, { keyId: account.upstreamKeyId, secret: account.upstreamSecret });
    }
  }
  return [...used.values()];
}

/** At start: one warning per account that shares its provider account, naming the command that gives it its own. */
export async function warnAboutSharedProviderAccounts(deps: ServiceDeps): Promise<void> {
  for (const shared of await accountsSharingProviders(deps)) {
    deps.log.warn(
      { email: shared.email, providerKeyId: shared.keyId, sharedWith: shared.sharedWith },
      `${shared.email} shares ${whose(deps, shared.keyId)} with ${shared.sharedWith.join(', ')}, so their contacts, opt-outs and groups mix at the provider; give it its own: textrelay accounts upstream set --email ${shared.email} --key-id KEY_ID --secret SECRET`,
    );
  }
}
