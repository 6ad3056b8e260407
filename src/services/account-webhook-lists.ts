import type { AccountRow } from '../db/rows.ts';
import type { WebhookSubscriptionRow } from '../db/store.ts';
import { ErrorCode } from '../domain/error-codes.ts';
import { WEBHOOK_TYPES, type WebhookType } from '../domain/webhook-types.ts';
import { checkWebhookCount } from './account-webhooks.ts';
import { AppError } from './app-error.ts';
import type { ServiceDeps } from './deps.ts';
import { inTransaction } from './transactions.ts';

/** An entry as the SDK gives and gets it: a bare URL, or an object. */
export type WebhookEntry = string | { url: string; secret?: string; sendblue_numbers?: string[] };

/** The SDK's `Webhooks` map: one array per type that has entries (empty types are left out), and globalSecret when set. */
export type WebhookMap = Partial<Record<WebhookType, WebhookEntry[]>> & { globalSecret?: string };

function urlOf(entry: WebhookEntry): string {
  return typeof entry === 'string' ? entry : entry.url;
}

function toEntry(row: WebhookSubscriptionRow): WebhookEntry {
  if (!row.givenAsObject) return row.url;
  return {
    url: row.url,
    ...(row.secret === null ? {} : { secret: row.secret }),
    ...(row.sendblueNumbers === null ? {} : { sendblue_numbers: row.sendblueNumbers }),
  };
}

function toRow(accountId: string, type: WebhookType, entry: WebhookEntry, now: number): WebhookSubscriptionRow {
  if (typeof entry === 'string') {
    return { accountId, type, url: entry, secret: null, sendblueNumbers: null, givenAsObject: false, createdAt: now };
  }
  return {
    accountId,
    type,
    url: entry.url,
    secret: entry.secret ?? null,
    sendblueNumbers: entry.sendblue_numbers ?? null,
    givenAsObject: true,
    createdAt: now,
  };
}

/** Every URL of the entries, with the field path that names it in a 400: for the callback URL policy. */
export function entryUrls(entries: readonly WebhookEntry[], field: string): { url: string; field: string }[] {
  return entries.map((entry, index) => ({
    url: urlOf(entry),
    field: typeof entry === 'string' ? `${field}[${index}]` : `${field}[${index}].url`,
  }));
}

function checkEntries(type: WebhookType, entries: readonly WebhookEntry[], field: string): void {
  for (const [index, entry] of entries.entries()) {
    if (typeof entry !== 'string' && entry.sendblue_numbers !== undefined && type !== 'receive') {
      throw new AppError(ErrorCode.validation, `${field}[${index}].sendblue_numbers is allowed on receive webhooks only, not ${type}`);
    }
  }
}

/**
 * Stores entries after the type's existing ones, in the order given: the list is ordered by
 * created_at, so each entry gets its own millisecond after the latest one there.
 */
async function appendEntries(deps: ServiceDeps, accountId: string, type: WebhookType, entries: readonly WebhookEntry[]): Promise<void> {
  const existing = await deps.store.webhookSubscriptions.ofType(accountId, type);
  const start = Math.max(deps.clock.now(), (existing.at(-1)?.createdAt ?? 0) + 1);
  for (const [index, entry] of entries.entries()) {
    await deps.store.webhookSubscriptions.add(toRow(accountId, type, entry, start + index));
  }
}

async function mapOf(deps: ServiceDeps, accountId: string): Promise<WebhookMap> {
  const map: WebhookMap = {};
  for (const row of await deps.store.webhookSubscriptions.all(accountId)) {
    const list = map[row.type] ?? [];
    list.push(toEntry(row));
    map[row.type] = list;
  }
  const globalSecret = (await deps.store.accounts.findById(accountId))?.webhookGlobalSecret;
  if (globalSecret) map.globalSecret = globalSecret;
  return map;
}

export async function listWebhookMap(deps: ServiceDeps, account: AccountRow): Promise<WebhookMap> {
  return inTransaction(deps, async (deps) => mapOf(deps, account.id));
}

/** Appends entries to one type's list (a URL already there is kept as it was); URLs were checked by the caller. */
export async function addWebhookEntries(
  deps: ServiceDeps,
  account: AccountRow,
  input: { type: WebhookType; webhooks: readonly WebhookEntry[]; globalSecret?: string | undefined },
): Promise<WebhookMap> {
  checkEntries(input.type, input.webhooks, 'webhooks');
  return inTransaction(deps, async (deps) => {
    const existing = (await deps.store.webhookSubscriptions.ofType(account.id, input.type)).map((row) => row.url);
    checkWebhookCount(deps, input.type, [...existing, ...input.webhooks.map(urlOf)]);
    await appendEntries(deps, account.id, input.type, input.webhooks);
    if (input.globalSecret !== undefined) await deps.store.accountWebhooks.setGlobalSecret(account.id, input.globalSecret);
    return mapOf(deps, account.id);
  });
}

/** Replaces the list of every type present in the map; absent types stay as they are. */
export async function replaceWebhookEntries(deps: ServiceDeps, account: AccountRow, map: WebhookMap): Promise<WebhookMap> {
  const types = WEBHOOK_TYPES.filter((type) => map[type] !== undefined);
  for (const type of types) {
    checkEntries(type, map[type] ?? [], `webhooks.${type}`);
    checkWebhookCount(deps, type, (map[type] ?? []).map(urlOf));
  }
  return inTransaction(deps, async (deps) => {
    for (const type of types) {
      await deps.store.webhookSubscriptions.removeType(account.id, type);
      await appendEntries(deps, account.id, type, map[type] ?? []);
    }
    if (map.globalSecret !== undefined) await deps.store.accountWebhooks.setGlobalSecret(account.id, map.globalSecret);
    return mapOf(deps, account.id);
  });
}

/** Removes URLs from one type's list; URLs not there are ignored, so a repeated DELETE answers the same. */
export async function removeWebhookEntries(
  deps: ServiceDeps,
  account: AccountRow,
  type: WebhookType,
  urls: readonly string[],
): Promise<void> {
  await inTransaction(deps, async (deps) => {
    for (const url of urls) await deps.store.webhookSubscriptions.remove(account.id, type, url);
  });
}
