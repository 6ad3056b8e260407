import type { Db } from './connection.ts';
import { accountEventQueries } from './queries/account-events.ts';
import { accountWebhookQueries } from './queries/account-webhooks.ts';
import { accountQueries } from './queries/accounts.ts';
import { contactQueries } from './queries/contacts.ts';
import { conversationQueries } from './queries/conversations.ts';
import { eventQueries } from './queries/events.ts';
import { groupQueries } from './queries/groups.ts';
import { idempotencyQueries } from './queries/idempotency.ts';
import { inboxQueries } from './queries/inbox.ts';
import { lineQueries } from './queries/lines.ts';
import { mediaQueries } from './queries/media.ts';
import { messageQueries } from './queries/messages.ts';
import { messageV2Queries } from './queries/messages-v2.ts';
import { orphanQueries } from './queries/orphans.ts';
import { outboxQueries } from './queries/outbox.ts';
import { sandboxQueries } from './queries/sandbox.ts';
import { statsQueries } from './queries/stats.ts';
import { unroutedQueries } from './queries/unrouted.ts';
import { webhookSubscriptionQueries } from './queries/webhook-subscriptions.ts';

/**
 * Everything the services may ask of the database, by name. All SQL lives behind this object,
 * so another backend replaces this file's factories and nothing above it.
 */
export function createStore(db: Db) {
  // better-sqlite3 builds four wrappers per transaction() call: build one, once, that runs any work.
  const inTransaction = db.$client.transaction((work: () => unknown) => work());
  return {
    accountEvents: accountEventQueries(db),
    accounts: accountQueries(db),
    contacts: contactQueries(db),
    conversations: conversationQueries(db),
    events: eventQueries(db),
    groups: groupQueries(db),
    idempotency: idempotencyQueries(db),
    inbox: inboxQueries(db),
    media: mediaQueries(db),
    messages: messageQueries(db),
    messagesV2: messageV2Queries(db),
    lines: lineQueries(db),
    orphans: orphanQueries(db),
    outbox: outboxQueries(db),
    accountWebhooks: accountWebhookQueries(db),
    sandbox: sandboxQueries(db),
    stats: statsQueries(db),
    unrouted: unroutedQueries(db),
    webhookSubscriptions: webhookSubscriptionQueries(db),
    /**
     * Runs `work` in one transaction (a savepoint when nested). better-sqlite3 transactions are
     * synchronous: `work` must not await, or its writes would escape the transaction.
     */
    transaction<T>(work: () => T): T {
      return inTransaction(work) as T;
    },
  };
}

export type Store = ReturnType<typeof createStore>;
