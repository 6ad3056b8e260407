import { createHash, randomBytes, randomInt, randomUUID, timingSafeEqual } from 'node:crypto';
import type { AccountRow } from '../db/rows.ts';
import { CARRIER_PROFILES, type CarrierName } from '../domain/carriers.ts';
import { ErrorCode } from '../domain/error-codes.ts';
import type { Plan } from '../domain/limits.ts';
import { workerIdOf } from '../domain/line-state.ts';
import { FICTIONAL_LINE_COUNT, fictionalLineNumber } from '../domain/service-numbers.ts';
import { recordAccountEvent } from './account-events.ts';
import { addReceiveUrl, receiveUrls } from './account-webhooks.ts';
import { AppError } from './app-error.ts';
import type { ServiceDeps } from './deps.ts';
import { refuseLinesTheCarrierLacks } from './line-carriers.ts';
import type { ProviderCredentials } from './provider.ts';
import { inTransaction } from './transactions.ts';
import { providerKeyOf, refuseSharedProviderAccount } from './upstream-credentials.ts';

/** An account as the services take it: the callers above them never see the database row type. */
export type Account = AccountRow;

export type CreatedAccount = {
  email: string;
  plan: Plan;
  api_key_id: string;
  api_secret_key: string;
  numbers: string[];
  receive_webhook: string | null;
};

/** A line and the carrier delivering it (null: none, as with the sandbox and the relay). */
export type LineSummary = { number: string; carrier: string | null };

/** `upstream_key_id`: the account's own provider account in relay mode, null when it uses the relay's. */
export type AccountSummary = Omit<CreatedAccount, 'api_secret_key'> & {
  lines: LineSummary[];
  upstream_key_id: string | null;
  created_at: string;
};

function hashSecret(secret: string): Buffer {
  return createHash('sha256').update(secret).digest();
}

function newSecret(): string {
  return `sk_${randomBytes(32).toString('base64url')}`;
}

// Stands in for the stored hash when the key id is unknown, so a miss decodes, hashes and compares as a wrong secret does.
const UNKNOWN_KEY_HASH = hashSecret(newSecret()).toString('hex');

/**
 * The account these credentials belong to, or undefined; a miss and a wrong secret do the same work.
 * The account cache keeps the account under the key id and the hash of the secret presented, once
 * they matched: a wrong secret never finds an entry, and goes to the database as an unknown key id.
 */
export async function authenticate(deps: ServiceDeps, apiKeyId: string, apiSecret: string): Promise<AccountRow | undefined> {
  const presented = hashSecret(apiSecret);
  return deps.accountCache.through(deps.store, 'credentials', `${apiKeyId}\n${presented.toString('hex')}`, async () => {
    const account = await deps.store.accounts.findByKeyId(apiKeyId);
    const expected = Buffer.from(account?.apiSecretHash ?? UNKNOWN_KEY_HASH, 'hex');
    const matches = timingSafeEqual(presented, expected);
    return account && matches ? account : undefined;
  });
}

async function allocateLines(deps: ServiceDeps, accountId: string, count: number, now: number): Promise<string[]> {
  const lines: string[] = [];
  // Start at a random place so accounts do not crowd the first area code, then walk the block.
  const start = randomInt(FICTIONAL_LINE_COUNT);
  for (let offset = 0; offset < FICTIONAL_LINE_COUNT && lines.length < count; offset++) {
    const candidate = fictionalLineNumber((start + offset) % FICTIONAL_LINE_COUNT);
    if (await deps.store.accounts.insertServiceNumber(accountId, candidate, now)) lines.push(candidate);
  }
  if (lines.length < count) {
    throw new AppError(ErrorCode.conflict, `Only ${lines.length} sandbox numbers are left; cannot give ${count}`);
  }
  return lines;
}

/** Logs `line.assigned` or `line.unassigned` for each line; call inside the transaction that changes them. */
async function recordLineEvents(
  deps: ServiceDeps,
  accountId: string,
  type: 'line.assigned' | 'line.unassigned',
  numbers: readonly string[],
  now: number,
): Promise<void> {
  for (const number of numbers)
    await recordAccountEvent(deps, accountId, type, { sendblue_number: number, worker_id: workerIdOf(number) }, now);
}

/** Refuses more lines on a carrier than it can serve (a BlueBubbles server is one iMessage identity). */
async function refuseOverfullCarrier(deps: ServiceDeps, carrier: CarrierName, adding: readonly string[]): Promise<void> {
  const { label, maxLines } = CARRIER_PROFILES[carrier];
  if (maxLines === undefined) return;
  const bound = (await deps.store.lines.all()).filter((line) => line.carrier === carrier).map((line) => line.number);
  if (bound.length + adding.length <= maxLines) return;
  const already = bound.length === 0 ? '' : `; ${bound.join(', ')} is already bound to it`;
  throw new AppError(
    ErrorCode.conflict,
    `${label} serves one identity, so at most ${maxLines} line may be bound to it${already}: cannot add ${adding.join(', ')}`,
  );
}

/**
 * Gives the account these lines (the provider's or the carrier's real numbers); refuses, writing
 * nothing, a line another account owns, or more lines than the carrier can serve.
 */
async function claimLines(
  deps: ServiceDeps,
  accountId: string,
  numbers: readonly string[],
  now: number,
  carrier: CarrierName | undefined,
): Promise<string[]> {
  for (const number of numbers) {
    const owner = await deps.store.accounts.findByServiceNumber(number);
    if (owner) {
      const whose = owner.id === accountId ? 'this account' : `account ${owner.email}`;
      throw new AppError(ErrorCode.conflict, `${number} is already a line of ${whose}; a line belongs to one account only`);
    }
  }
  if (carrier !== undefined) await refuseOverfullCarrier(deps, carrier, numbers);
  for (const number of numbers) await deps.store.accounts.insertServiceNumber(accountId, number, now, carrier ?? null);
  return [...numbers];
}

export type CreateAccountInput = {
  email: string;
  plan: Plan;
  /** How many sandbox-style numbers to generate, or the lines themselves (E.164, e.g. the provider's real numbers). */
  numbers?: number | readonly string[] | undefined;
  receiveWebhook?: string | undefined;
  /** Relay mode: the account's own provider account; the relay's (TEXTRELAY_UPSTREAM_KEY_ID) when not given. */
  upstream?: ProviderCredentials | undefined;
  /** The carrier delivering the given lines; none for the sandbox and the relay. */
  carrier?: CarrierName | undefined;
};

export async function createAccount(deps: ServiceDeps, input: CreateAccountInput): Promise<CreatedAccount> {
  const apiSecret = newSecret();
  const now = deps.clock.now();
  const account: AccountRow = {
    id: `acc_${randomUUID()}`,
    email: input.email,
    plan: input.plan,
    apiKeyId: `key_${randomBytes(12).toString('hex')}`,
    apiSecretHash: hashSecret(apiSecret).toString('hex'),
    webhookSecret: null,
    previousWebhookSecret: null,
    previousWebhookSecretExpiresAt: null,
    webhookGlobalSecret: null,
    upstreamKeyId: input.upstream?.keyId ?? null,
    upstreamSecret: input.upstream?.secret ?? null,
    createdAt: now,
  };
  if (input.carrier !== undefined && typeof input.numbers !== 'object') {
    throw new AppError(
      ErrorCode.validation,
      `${CARRIER_PROFILES[input.carrier].label} lines are its real numbers: give them as E.164 numbers`,
    );
  }
  // Asked before the transaction: the carrier's answer may take seconds.
  if (input.carrier !== undefined && typeof input.numbers === 'object')
    await refuseLinesTheCarrierLacks(deps, input.carrier, input.numbers);
  return inTransaction(deps, async (deps) => {
    if (await deps.store.accounts.findByEmail(input.email)) {
      throw new AppError(ErrorCode.conflict, `An account with email ${input.email} already exists`);
    }
    await refuseSharedProviderAccount(deps, account.email, providerKeyOf(deps, account));
    await deps.store.accounts.insertAccount(account);
    const numbers =
      typeof input.numbers === 'object'
        ? await claimLines(deps, account.id, input.numbers, now, input.carrier)
        : await allocateLines(deps, account.id, input.numbers ?? deps.defaultNumbersPerAccount, now);
    await recordLineEvents(deps, account.id, 'line.assigned', numbers, now);
    if (input.receiveWebhook) await addReceiveUrl(deps, account.id, input.receiveWebhook, now);
    return {
      email: account.email,
      plan: account.plan,
      api_key_id: account.apiKeyId,
      api_secret_key: apiSecret,
      numbers,
      receive_webhook: input.receiveWebhook ?? null,
    };
  });
}

export async function listAccounts(deps: ServiceDeps): Promise<AccountSummary[]> {
  const summaries: AccountSummary[] = [];
  for (const account of await deps.store.accounts.list()) {
    const webhooks = await receiveUrls(deps, account.id);
    summaries.push({
      email: account.email,
      plan: account.plan,
      api_key_id: account.apiKeyId,
      numbers: await deps.store.accounts.listServiceNumbers(account.id),
      lines: await linesOf(deps, account.id),
      receive_webhook: webhooks[0] ?? null,
      upstream_key_id: account.upstreamKeyId,
      created_at: new Date(account.createdAt).toISOString(),
    });
  }
  return summaries;
}

/** Issues a new API secret; the old one stops working at once. */
export async function rotateSecret(
  deps: ServiceDeps,
  email: string,
): Promise<{ email: string; api_key_id: string; api_secret_key: string }> {
  const account = await accountByEmail(deps, email);
  const apiSecret = newSecret();
  await deps.store.accounts.updateSecretHash(account.id, hashSecret(apiSecret).toString('hex'));
  return { email, api_key_id: account.apiKeyId, api_secret_key: apiSecret };
}

async function accountByEmail(deps: ServiceDeps, email: string): Promise<AccountRow> {
  const account = await deps.store.accounts.findByEmail(email);
  if (!account) throw new AppError(ErrorCode.notFound, `No account with email ${email}`);
  return account;
}

export type AccountLines = { email: string; numbers: string[]; lines: LineSummary[] };

async function linesOf(deps: ServiceDeps, accountId: string): Promise<LineSummary[]> {
  return (await deps.store.lines.ofAccount(accountId)).map((line) => ({ number: line.number, carrier: line.carrier }));
}

export async function listLines(deps: ServiceDeps, email: string): Promise<AccountLines> {
  const lines = await linesOf(deps, (await accountByEmail(deps, email)).id);
  return { email, numbers: lines.map((line) => line.number), lines };
}

/** Gives the account more lines, delivered by `carrier` when given; all or none, and none another account owns. */
export async function addLines(
  deps: ServiceDeps,
  email: string,
  numbers: readonly string[],
  carrier?: CarrierName | undefined,
): Promise<AccountLines> {
  if (carrier !== undefined) await refuseLinesTheCarrierLacks(deps, carrier, numbers);
  const { accountId, lines } = await inTransaction(deps, async (deps) => {
    const account = await accountByEmail(deps, email);
    const now = deps.clock.now();
    await recordLineEvents(deps, account.id, 'line.assigned', await claimLines(deps, account.id, numbers, now, carrier), now);
    return { accountId: account.id, lines: await listLines(deps, email) };
  });
  deps.notify.accountActivity?.(accountId);
  return lines;
}

/**
 * Takes lines from the account; all or none. A line that end users are pinned to or groups live on
 * is refused unless `force` retires it: its end users are pinned anew at their next message, its
 * groups move to a line the account keeps, and its messages stay in the history.
 */
export async function removeLines(
  deps: ServiceDeps,
  email: string,
  numbers: readonly string[],
  { force = false }: { force?: boolean } = {},
): Promise<AccountLines> {
  const { accountId, lines } = await inTransaction(deps, async (deps) => {
    const account = await accountByEmail(deps, email);
    const owned = await deps.store.accounts.listServiceNumbers(account.id);
    for (const number of numbers) {
      if (!owned.includes(number)) throw new AppError(ErrorCode.notFound, `${number} is not a line of ${email}`);
    }
    const kept = owned.filter((number) => !numbers.includes(number));
    if (kept.length === 0) throw new AppError(ErrorCode.conflict, `${email} would have no line left; add another first`);
    for (const number of numbers) await releaseLine(deps, number, kept[0]!, force);
    for (const number of numbers) await deps.store.accounts.deleteServiceNumber(account.id, number);
    await recordLineEvents(deps, account.id, 'line.unassigned', numbers, deps.clock.now());
    return { accountId: account.id, lines: await listLines(deps, email) };
  });
  deps.notify.accountActivity?.(accountId);
  return lines;
}

/** Frees a line of what depends on it (with `force`), moving its groups to `heir`; else refuses while anything does. */
async function releaseLine(deps: ServiceDeps, number: string, heir: string, force: boolean): Promise<void> {
  const users = await deps.store.accounts.lineUsers(number);
  if (users.pinnedEndUsers === 0 && users.groups === 0) return;
  const carried = `pinned end users: ${users.pinnedEndUsers}, groups: ${users.groups}`;
  if (!force) throw new AppError(ErrorCode.conflict, `${number} still carries conversations (${carried}); retire it with --force`);
  const left = await deps.store.accounts.releaseLine(number, heir);
  if (left > 0) {
    throw new AppError(
      ErrorCode.conflict,
      `${number} carries ${left} group(s) whose members already have a group on ${heir}; delete one of each pair first`,
    );
  }
}

export const DEV_ACCOUNT_EMAIL = 'dev@textrelay.local';

/** On an empty database, `serve` creates one account so the service is usable at once. */
export async function createDevAccountIfEmpty(deps: ServiceDeps): Promise<CreatedAccount | undefined> {
  if ((await deps.store.accounts.count()) > 0) return undefined;
  try {
    return await createAccount(deps, { email: DEV_ACCOUNT_EMAIL, plan: 'sapphire' });
  } catch (error) {
    // Instances started together on one empty database: the first creates it, the others find it made.
    if (error instanceof AppError && error.code === ErrorCode.conflict) return undefined;
    throw error;
  }
}
