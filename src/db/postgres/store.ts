import type { Queries, Store } from '../store.ts';
import type { PgDb } from './db.ts';
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
import { transactionalStore } from './transactional-store.ts';

/** Each module of the store and the factory of its PostgreSQL queries: the factories' answers are checked against `Queries`. */
const factories = {
  accountEvents: accountEventQueries,
  accounts: accountQueries,
  carrierState: carrierStateQueries,
  contacts: contactQueries,
  conversations: conversationQueries,
  dataVersion: dataVersionQueries,
  events: eventQueries,
  groups: groupQueries,
  idempotency: idempotencyQueries,
  inbox: inboxQueries,
  media: mediaQueries,
  messages: messageQueries,
  messagesV2: messageV2Queries,
  lines: lineQueries,
  orphans: orphanQueries,
  outbox: outboxQueries,
  accountWebhooks: accountWebhookQueries,
  sandbox: sandboxQueries,
  stats: statsQueries,
  unrouted: unroutedQueries,
  webhookSubscriptions: webhookSubscriptionQueries,
  wholeWrites: wholeWriteQueries,
} satisfies { [Module in keyof Queries]: (db: PgDb) => Queries[Module] };

/**
 * The store on a PostgreSQL pool: every query module of src/db/postgres/queries, each transaction
 * on one connection of the pool (see transactionalStore).
 */
export function createPostgresStore(db: PgDb): Store {
  return transactionalStore(factories, db) satisfies Store;
}
