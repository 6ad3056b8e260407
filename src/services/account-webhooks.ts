import { randomBytes } from 'node:crypto';
import type { AccountRow } from '../db/rows.ts';
import { ErrorCode } from '../domain/error-codes.ts';
import { AppError } from './app-error.ts';
import type { ServiceDeps } from './deps.ts';
import { inTransaction } from './transactions.ts';

/** After a rotation the old secret still signs for this long, so receivers can switch without a gap. */
export const PREVIOUS_SECRET_GRACE_MS = 24 * 60 * 60 * 1000;

/** URLs one request may name: the account's own cap (deps.webhookUrlsPerType) is checked against what it would make. */
export const MAX_WEBHOOK_URLS_PER_REQUEST = 100;

/**
 * Refuses a webhook list that would grow past the account's cap, before anything is written: each
 * URL is POSTed every event of its type, so the cap bounds what one event makes.
 */
export function checkWebhookCount(deps: Pick<ServiceDeps, 'webhookUrlsPerType'>, type: string, urls: Iterable<string>): void {
  const count = new Set(urls).size;
  if (count > deps.webhookUrlsPerType) {
    throw new AppError(
      ErrorCode.validation,
      `An account may have at most ${deps.webhookUrlsPerType} ${type} webhook URLs (TEXTRELAY_WEBHOOK_URLS_PER_TYPE); this would make ${count}`,
    );
  }
}

/** A Standard Webhooks secret: `whsec_` and 24 random bytes in base64 (the part after the prefix is the key). */
function newWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

async function requireSecrets(deps: ServiceDeps, accountId: string) {
  const secrets = await deps.store.accountWebhooks.secretsOf(accountId);
  if (!secrets) throw new AppError(ErrorCode.notFound, `Account ${accountId} not found`);
  return secrets;
}

/** The account's signing secret, created on first use (by whichever of the API or the dispatcher asks first). */
export async function getOrCreateWebhookSecret(deps: ServiceDeps, accountId: string): Promise<string> {
  return inTransaction(deps, async (deps) => {
    const existing = (await requireSecrets(deps, accountId)).webhookSecret;
    if (existing !== null) return existing;
    const secret = newWebhookSecret();
    await deps.store.accountWebhooks.setFirstSecret(accountId, secret);
    return secret;
  });
}

/** A new signing secret; the current one keeps signing beside it for 24 h. */
export async function rotateWebhookSecret(deps: ServiceDeps, account: AccountRow): Promise<string> {
  return inTransaction(deps, async (deps) => {
    const current = (await requireSecrets(deps, account.id)).webhookSecret;
    const secret = newWebhookSecret();
    await deps.store.accountWebhooks.setSecrets(account.id, {
      webhookSecret: secret,
      previousWebhookSecret: current,
      previousWebhookSecretExpiresAt: current === null ? null : deps.clock.now() + PREVIOUS_SECRET_GRACE_MS,
    });
    return secret;
  });
}

/** The account's `receive` list as bare URLs: what the v1 /accounts/webhooks shows. */
export async function receiveUrls(deps: ServiceDeps, accountId: string): Promise<string[]> {
  return (await deps.store.webhookSubscriptions.ofType(accountId, 'receive')).map((entry) => entry.url);
}

/** Adds a URL to the `receive` list as a bare URL entry; one already there is kept as it is. */
export async function addReceiveUrl(deps: ServiceDeps, accountId: string, url: string, now: number): Promise<void> {
  await deps.store.webhookSubscriptions.add({
    accountId,
    type: 'receive',
    url,
    secret: null,
    sendblueNumbers: null,
    givenAsObject: false,
    createdAt: now,
  });
}

export type WebhookSettings = { receive: string[]; secret: string };

async function settingsOf(deps: ServiceDeps, account: AccountRow): Promise<WebhookSettings> {
  return { receive: await receiveUrls(deps, account.id), secret: await getOrCreateWebhookSecret(deps, account.id) };
}

export async function getWebhookSettings(deps: ServiceDeps, account: AccountRow): Promise<WebhookSettings> {
  return inTransaction(deps, async (deps) => settingsOf(deps, account));
}

/** Adds receive URLs (already validated and checked against the SSRF policy); ones already there are kept once. */
export async function addReceiveWebhooks(deps: ServiceDeps, account: AccountRow, urls: readonly string[]): Promise<WebhookSettings> {
  return inTransaction(deps, async (deps) => {
    const now = deps.clock.now();
    checkWebhookCount(deps, 'receive', [...(await receiveUrls(deps, account.id)), ...urls]);
    for (const url of urls) await addReceiveUrl(deps, account.id, url, now);
    return settingsOf(deps, account);
  });
}

/** Removes receive URLs; URLs that were not registered are ignored, so a repeated DELETE answers the same. */
export async function removeReceiveWebhooks(deps: ServiceDeps, account: AccountRow, urls: readonly string[]): Promise<WebhookSettings> {
  return inTransaction(deps, async (deps) => {
    for (const url of urls) await deps.store.webhookSubscriptions.remove(account.id, 'receive', url);
    return settingsOf(deps, account);
  });
}
