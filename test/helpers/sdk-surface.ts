/** Helpers of the SDK-surface tests: account webhook lists, the event log, and a provider that records calls. */
import { asc, eq } from 'drizzle-orm';
import { webhookDeliveries as pgWebhookDeliveries } from '../../src/db/postgres/schema.ts';
import { webhookDeliveries } from '../../src/db/schema.ts';
import type { WebhookType } from '../../src/domain/webhook-types.ts';
import { ProviderAnswer, type ProviderApi, type ProviderRequest } from '../../src/services/provider.ts';
import type { TestAccount, TestApp } from './app.ts';
import { oneProviderAccount } from './providers.ts';

/** The account's id, found by its first line (a line has one owner). */
export async function accountIdOf(t: TestApp, account: TestAccount): Promise<string> {
  const row = await t.store.accounts.findByServiceNumber(account.numbers[0]!);
  if (!row) throw new Error(`no account owns ${account.numbers[0]}`);
  return row.id;
}

/** Adds `url` to the account's webhook list of `type`, as /api/account/webhooks would. */
export async function subscribe(t: TestApp, account: TestAccount, type: WebhookType, url: string): Promise<void> {
  await t.store.webhookSubscriptions.add({
    accountId: await accountIdOf(t, account),
    type,
    url,
    secret: null,
    sendblueNumbers: null,
    givenAsObject: false,
    createdAt: 0,
  });
}

/** The account's outbox rows of every kind, in the order they were written. */
export async function accountOutbox(t: TestApp, account: TestAccount) {
  if (t.postgres !== undefined) {
    const table = pgWebhookDeliveries;
    return await (await t.postgres)
      .select()
      .from(table)
      .where(eq(table.accountId, await accountIdOf(t, account)))
      .orderBy(asc(table.seq));
  }
  return t.db
    .select()
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.accountId, await accountIdOf(t, account)))
    .orderBy(asc(webhookDeliveries.seq))
    .all();
}

/** The account's event log, oldest first, with `data` parsed. */
/** The account's events but its lines' (creating the account logs one line.assigned per line). */
export async function accountEvents(t: TestApp, account: TestAccount) {
  return (await t.store.accountEvents.after(await accountIdOf(t, account), 0, 1_000))
    .filter((event) => !event.type.startsWith('line.'))
    .map((event) => ({ ...event, data: JSON.parse(event.data) }));
}

/** A provider that answers `answer(request)` and remembers every request; installed on the app's deps (relay mode). */
export function fakeProvider(t: TestApp, answer: (request: ProviderRequest) => { status: number; body: unknown }) {
  const calls: ProviderRequest[] = [];
  const provider: ProviderApi = {
    async call(request) {
      calls.push(request);
      const { status, body } = answer(request);
      return new ProviderAnswer(status, body);
    },
  };
  t.deps.providers = oneProviderAccount(provider);
  return calls;
}
