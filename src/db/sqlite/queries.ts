import type { Db } from './connection.ts';
import { accountEventQueries } from './queries/account-events.ts';
import { accountWebhookQueries } from './queries/account-webhooks.ts';
import { accountQueries } from './queries/accounts.ts';
import { carrierStateQueries } from './queries/carrier-state.ts';
import { contactQueries } from './queries/contacts.ts';
import { conversationQueries } from './queries/conversations.ts';
import { dataVersionQueries } from './queries/data-version.ts';
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
import { wholeWriteQueries } from './queries/whole-writes.ts';

/** SQLite's answers to every query of the store, given at once (better-sqlite3 is synchronous). */
export function createSqliteQueries(db: Db) {
  const [accountEvents, accounts, contacts, messages, outbox] = [
    accountEventQueries(db),
    accountQueries(db),
    contactQueries(db),
    messageQueries(db),
    outboxQueries(db),
  ];
  return {
    accountEvents,
    accounts,
    carrierState: carrierStateQueries(db),
    contacts,
    conversations: conversationQueries(db),
    dataVersion: dataVersionQueries(db),
    events: eventQueries(db),
    groups: groupQueries(db),
    idempotency: idempotencyQueries(db),
    inbox: inboxQueries(db),
    media: mediaQueries(db),
    messages,
    messagesV2: messageV2Queries(db),
    lines: lineQueries(db),
    orphans: orphanQueries(db),
    outbox,
    accountWebhooks: accountWebhookQueries(db),
    sandbox: sandboxQueries(db),
    stats: statsQueries(db),
    unrouted: unroutedQueries(db),
    webhookSubscriptions: webhookSubscriptionQueries(db),
    wholeWrites: wholeWriteQueries({ messages, accountEvents, accounts, contacts, outbox }),
  };
}

export type SqliteQueries = ReturnType<typeof createSqliteQueries>;
