import { beforeEach, describe, expect, it } from 'vitest';
import { accountWebhookQueries } from '../../../src/db/postgres/queries/account-webhooks.ts';
import { webhookSubscriptionQueries } from '../../../src/db/postgres/queries/webhook-subscriptions.ts';
import type { Queries } from '../../../src/db/store.ts';
import { ACCOUNT, answering, OTHER_ACCOUNT, seedAccounts, useTwins } from '../../helpers/postgres-twins.ts';

async function secretsStory(secrets: Queries['accountWebhooks']): Promise<unknown[]> {
  return [
    await secrets.secretsOf(ACCOUNT),
    await secrets.secretsOf('nobody'),
    await secrets.setFirstSecret(ACCOUNT, 'whsec_two'), // one exists
    await secrets.setFirstSecret(OTHER_ACCOUNT, 'whsec_first'),
    await secrets.setFirstSecret(OTHER_ACCOUNT, 'whsec_again'),
    await secrets.secretsOf(OTHER_ACCOUNT),
    await secrets.setGlobalSecret(ACCOUNT, 'global'),
    await secrets.setSecrets(ACCOUNT, { webhookSecret: 'new', previousWebhookSecret: 'whsec_one', previousWebhookSecretExpiresAt: 9_000 }),
    await secrets.secretsOf(ACCOUNT),
  ];
}

async function listsStory(lists: Queries['webhookSubscriptions']): Promise<unknown[]> {
  const entry = (type: 'receive' | 'outbound', url: string, createdAt: number) => ({
    accountId: ACCOUNT,
    type,
    url,
    secret: null,
    sendblueNumbers: null,
    givenAsObject: false,
    createdAt,
  });
  return [
    await lists.add(entry('receive', 'https://b.test', 2)),
    await lists.add({ ...entry('receive', 'https://a.test', 2), secret: 'own', sendblueNumbers: ['+15550001111'], givenAsObject: true }),
    await lists.add(entry('receive', 'https://c.test', 1)),
    await lists.add({ ...entry('receive', 'https://b.test', 9), secret: 'ignored' }), // already listed
    await lists.add(entry('outbound', 'https://b.test', 3)),
    await lists.add({ ...entry('receive', 'https://z.test', 0), accountId: OTHER_ACCOUNT }),
    await lists.ofType(ACCOUNT, 'receive'),
    await lists.all(ACCOUNT),
    await lists.remove(ACCOUNT, 'receive', 'https://c.test'),
    await lists.remove(ACCOUNT, 'receive', 'https://c.test'),
    await lists.removeType(ACCOUNT, 'receive'),
    await lists.all(ACCOUNT),
    await lists.ofType(OTHER_ACCOUNT, 'receive'),
  ];
}

describe('the PostgreSQL account webhook settings', () => {
  const twins = useTwins();
  beforeEach(() => seedAccounts(twins));

  it('answers the secrets calls as SQLite does', async () => {
    const typed: Queries['accountWebhooks'] = accountWebhookQueries(twins.pg);
    const expected = await secretsStory(answering(twins.sqlite.accountWebhooks));
    expect(await secretsStory(typed)).toEqual(expected);
  });

  it('answers the webhook list calls as SQLite does', async () => {
    const typed: Queries['webhookSubscriptions'] = webhookSubscriptionQueries(twins.pg);
    const expected = await listsStory(answering(twins.sqlite.webhookSubscriptions));
    expect(await listsStory(typed)).toEqual(expected);
  });
});
