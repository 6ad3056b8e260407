import { sql } from 'drizzle-orm';
import { blob, index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { DELIVERY_STATES, WEBHOOK_EVENT_TYPES } from '../domain/delivery-views.ts';
import { PLANS } from '../domain/limits.ts';
import { MESSAGE_STATUSES } from '../domain/status.ts';
import { WEBHOOK_TYPES } from '../domain/webhook-types.ts';

/** Times are epoch milliseconds (integers): cheap to compare, index and convert to every API format. */

export const accounts = sqliteTable('accounts', {
  id: text().primaryKey(),
  email: text().notNull().unique(),
  plan: text({ enum: PLANS }).notNull(),
  apiKeyId: text().notNull().unique(),
  /** SHA-256 of the secret: the secret is 256 random bits, so a slow KDF would add latency to every request and no safety. */
  apiSecretHash: text().notNull(),
  /**
   * The `whsec_` secret that signs this account's callbacks, created on first use. Kept in clear:
   * the dispatcher needs it to sign, and the account reads it back (contract section 4).
   */
  webhookSecret: text(),
  /** The secret before the last rotation: callbacks carry its signature too until it expires, so receivers can switch without a gap. */
  previousWebhookSecret: text(),
  previousWebhookSecretExpiresAt: integer(),
  /** `globalSecret` of /api/account/webhooks: signs the entries that carry no secret of their own, when set. */
  webhookGlobalSecret: text(),
  /**
   * Relay mode: the account's own provider account (null: the relay's TEXTRELAY_UPSTREAM_KEY_ID).
   * Unique: two accounts on one provider account would share its contacts, opt-outs and groups.
   */
  upstreamKeyId: text().unique(),
  /** Kept in clear: the relay presents it on every call to the provider for this account. */
  upstreamSecret: text(),
  createdAt: integer().notNull(),
});

/** The account's lines: the service phone numbers its messages are sent from. */
export const serviceNumbers = sqliteTable(
  'service_numbers',
  {
    number: text().primaryKey(),
    accountId: text()
      .notNull()
      .references(() => accounts.id),
    /** How many end users are pinned to this line; kept here so picking the least-loaded line is one indexed read. */
    pinnedCount: integer().notNull().default(0),
    /** The carrier that delivers the line's messages (`bluebubbles`, `twilio`); null for the sandbox and the upstream relay. */
    carrier: text(),
    createdAt: integer().notNull(),
  },
  (t) => [
    // pickLeastLoadedLine: the account's lines ordered by load.
    index('service_numbers_account_load_idx').on(t.accountId, t.pinnedCount),
  ],
);

/** Each end user talks to an account through one line only, chosen the first time they are in touch. */
export const numberPins = sqliteTable(
  'number_pins',
  {
    accountId: text()
      .notNull()
      .references(() => accounts.id),
    endUserNumber: text().notNull(),
    lineNumber: text()
      .notNull()
      .references(() => serviceNumbers.number),
    createdAt: integer().notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.accountId, t.endUserNumber] }),
    // Removing a line is refused while end users are pinned to it.
    index('number_pins_line_idx').on(t.lineNumber),
  ],
);

/**
 * The account's webhook lists (/api/account/webhooks), one row per (type, URL). The v1
 * /accounts/webhooks reads and writes the `receive` rows.
 */
export const webhookSubscriptions = sqliteTable(
  'webhook_subscriptions',
  {
    accountId: text()
      .notNull()
      .references(() => accounts.id),
    type: text({ enum: WEBHOOK_TYPES }).notNull(),
    url: text().notNull(),
    /** The entry's own signing secret, when it was given one. */
    secret: text(),
    /** `receive` entries only: deliver only messages that arrived on these lines (null: every line). */
    sendblueNumbers: text({ mode: 'json' }).$type<string[]>(),
    /** Entries are listed back in the form they were given: a bare URL string or an object. */
    givenAsObject: integer({ mode: 'boolean' }).notNull().default(false),
    createdAt: integer().notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.type, t.url] })],
);

export const contacts = sqliteTable(
  'contacts',
  {
    id: text().primaryKey(),
    accountId: text()
      .notNull()
      .references(() => accounts.id),
    phone: text().notNull(),
    firstName: text().notNull(),
    lastName: text().notNull(),
    companyName: text().notNull().default(''),
    assignedToEmail: text().notNull().default(''),
    tags: text({ mode: 'json' }).$type<string[]>().notNull().default([]),
    customVariables: text({ mode: 'json' }).$type<Record<string, string>>().notNull().default({}),
    /** The end user said STOP (or was opted out through the API): sends to them are refused. */
    optedOut: integer({ mode: 'boolean' }).notNull().default(false),
    /**
     * Deleted through the API: hidden from contact reads, but kept so its messages and conversation
     * stay whole; writing to the number again brings it back as a new contact.
     */
    deletedAt: integer(),
    // The conversation summary is kept on the contact so listings sort by it without touching messages.
    lastMessageAt: integer(),
    previewText: text().notNull().default(''),
    lastInboundAt: integer(),
    lastOutboundAt: integer(),
    createdAt: integer().notNull(),
    updatedAt: integer().notNull().default(0),
  },
  (t) => [
    // One contact per person per account; also the lookup by phone on every send.
    uniqueIndex('contacts_account_phone_uq').on(t.accountId, t.phone),
    // Contact listing, one index per order_by choice (id breaks ties so pages never overlap).
    index('contacts_account_last_date_idx').on(t.accountId, t.lastMessageAt, t.id),
    index('contacts_account_first_name_idx').on(t.accountId, t.firstName, t.id),
    index('contacts_account_last_name_idx').on(t.accountId, t.lastName, t.id),
    index('contacts_account_created_idx').on(t.accountId, t.createdAt, t.id),
    index('contacts_account_updated_idx').on(t.accountId, t.updatedAt, t.id),
    // The account's live contacts counted (GET /api/v2/contacts/count, the contacts quota) without reading a row.
    index('contacts_account_live_idx').on(t.accountId, t.deletedAt).where(sql`deleted_at is null`),
  ],
);

/** A group chat is identified by its set of end users and the line it lives on: the same set on one line reuses one group. */
export const groups = sqliteTable(
  'groups',
  {
    id: text().primaryKey(),
    accountId: text()
      .notNull()
      .references(() => accounts.id),
    /** The members' E.164 numbers, sorted and comma-joined: the set as a comparable value. */
    memberKey: text().notNull(),
    lineNumber: text()
      .notNull()
      .references(() => serviceNumbers.number),
    displayName: text().notNull().default(''),
    /**
     * The transport's id for this group (the upstream's group_id), so replies from its members find it.
     * Unique per account only: a provider shared by several accounts answers the same id to each of them.
     */
    transportGroupId: text(),
    /** The group's photo: a stored media object. */
    photoMediaId: text(),
    createdAt: integer().notNull(),
    updatedAt: integer().notNull(),
  },
  (t) => [
    // Every group send by numbers finds the set's group on its line (or the oldest on any): one per set and line.
    uniqueIndex('groups_account_members_line_uq').on(t.accountId, t.memberKey, t.lineNumber),
    // Inbound group messages name the transport's group_id; the line they arrived on names the account.
    uniqueIndex('groups_account_transport_group_uq').on(t.accountId, t.transportGroupId).where(sql`transport_group_id is not null`),
    // Removing a line is refused while groups live on it.
    index('groups_line_idx').on(t.lineNumber),
    // Media retention keeps the files that are a group's photo.
    index('groups_photo_idx').on(t.photoMediaId).where(sql`photo_media_id is not null`),
  ],
);

export const groupMembers = sqliteTable(
  'group_members',
  {
    groupId: text()
      .notNull()
      .references(() => groups.id),
    number: text().notNull(),
    addedAt: integer().notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.groupId, t.number] }),
    // Message listing by `number` also finds the groups that number belongs to.
    index('group_members_number_idx').on(t.number, t.groupId),
  ],
);

export const messages = sqliteTable(
  'messages',
  {
    /** Insertion order: breaks ties between messages of the same millisecond in listings. */
    id: integer().primaryKey({ autoIncrement: true }),
    handle: text().notNull().unique(),
    accountId: text()
      .notNull()
      .references(() => accounts.id),
    isOutbound: integer({ mode: 'boolean' }).notNull(),
    messageType: text({ enum: ['message', 'group'] }).notNull(),
    status: text({ enum: MESSAGE_STATUSES }).notNull(),
    errorCode: integer(),
    errorMessage: text(),
    errorDetail: text(),
    content: text().notNull().default(''),
    mediaUrl: text().notNull().default(''),
    sendStyle: text().notNull().default(''),
    statusCallback: text(),
    /** The account's line this message went out on or came in to. */
    lineNumber: text().notNull(),
    /** The end user: the recipient of a single send, the sender of an inbound message, '' for an outbound group send. */
    number: text().notNull(),
    /** Outbound group sends: the members at the time of sending. */
    recipients: text({ mode: 'json' }).$type<string[]>(),
    contactId: text().references(() => contacts.id),
    groupId: text().references(() => groups.id),
    wasDowngraded: integer({ mode: 'boolean' }),
    /** The message this one answers (`reply_to`), and which part of it. */
    replyToHandle: text(),
    replyToPartIndex: integer(),
    /** Stored and echoed; textrelay gives seats no meaning. */
    seatId: text(),
    /** Inbound: the end user opted out with this very message (STOP); on its receive webhook and rows. */
    optedOut: integer({ mode: 'boolean' }).notNull().default(false),
    /**
     * The transport's id for this message: the upstream's handle for relayed sends, ours for the
     * sandbox, the provider's for inbound messages (so a redelivered inbound is recognised).
     */
    transportHandle: text(),
    /** When the transport accepted the message; null while it still has to be handed over. */
    handedOverAt: integer(),
    dateSent: integer().notNull(),
    dateUpdated: integer().notNull(),
  },
  (t) => [
    // Status events from the transport name its handle; unique so one transport message is one of ours.
    uniqueIndex('messages_transport_handle_uq').on(t.transportHandle).where(sql`transport_handle is not null`),
    // Start-up: outbound messages accepted but never handed over to the transport.
    index('messages_awaiting_handover_idx').on(t.id).where(sql`handed_over_at is null and is_outbound = 1 and status = 'QUEUED'`),
    // Unfiltered listing (newest first), from_date and is_outbound. The trailing is_outbound lets
    // SQLite reject the other direction's rows on the index entry, before reading the table row:
    // a page of inbound messages (a quarter of them) read 200 rows for 50 without it (2.3 ms -> 0.8 ms at 1M).
    index('messages_account_date_idx').on(t.accountId, t.dateSent, t.id, t.isOutbound),
    // Listing by cid.
    index('messages_account_contact_date_idx').on(t.accountId, t.contactId, t.dateSent, t.id),
    // Listing by number (single conversations).
    index('messages_account_number_date_idx').on(t.accountId, t.number, t.dateSent, t.id),
    // Listing by group_id, and by number through group membership.
    index('messages_account_group_date_idx').on(t.accountId, t.groupId, t.dateSent, t.id),
    // Listing by status.
    index('messages_account_status_date_idx').on(t.accountId, t.status, t.dateSent, t.id),
  ],
);

/** Every status event received for a message, applied or not, with the reason when not. */
export const statusEvents = sqliteTable(
  'status_events',
  {
    id: text().primaryKey(),
    /** No foreign key: an event may arrive before the send that created its handle is stored. */
    messageHandle: text().notNull(),
    status: text({ enum: MESSAGE_STATUSES }).notNull(),
    errorCode: integer(),
    errorMessage: text(),
    /** Who reported it: 'api' for the send itself, otherwise the transport's name. */
    source: text().notNull(),
    /** The reporter's own id for the event (the webhook-id of an ingested callback), when it has one. */
    sourceEventId: text(),
    applied: integer({ mode: 'boolean' }).notNull(),
    implied: integer({ mode: 'boolean' }).notNull().default(false),
    notAppliedReason: text(),
    receivedAt: integer().notNull(),
    /** How many times the same report (no event id of its own) came again after this one: kept as a count, not as rows. */
    repeats: integer().notNull().default(0),
  },
  (t) => [
    // A message's history, in arrival order.
    index('status_events_handle_idx').on(t.messageHandle, t.receivedAt),
    // The database, not memory, guarantees one applied change per status per message: so one callback each.
    uniqueIndex('status_events_applied_uq').on(t.messageHandle, t.status).where(sql`applied = 1`),
    // The same event delivered twice by its reporter is dropped outright.
    uniqueIndex('status_events_source_event_uq').on(t.source, t.sourceEventId).where(sql`source_event_id is not null`),
  ],
);

/**
 * Status events whose handle matches no message yet: a transport can report before the send
 * that created the handle is stored. Applied, then deleted, when the handle appears.
 */
export const orphanStatusEvents = sqliteTable(
  'orphan_status_events',
  {
    id: integer().primaryKey({ autoIncrement: true }),
    transportHandle: text().notNull(),
    status: text({ enum: MESSAGE_STATUSES }).notNull(),
    errorCode: integer(),
    errorMessage: text(),
    wasDowngraded: integer({ mode: 'boolean' }),
    source: text().notNull(),
    sourceEventId: text(),
    receivedAt: integer().notNull(),
  },
  (t) => [
    // Drained by handle when the message's transport handle is stored.
    index('orphan_status_events_handle_idx').on(t.transportHandle, t.id),
    uniqueIndex('orphan_status_events_source_event_uq').on(t.source, t.sourceEventId).where(sql`source_event_id is not null`),
  ],
);

/**
 * Inbound messages addressed to a line no account owns: kept for the operator (status, tail,
 * metrics), never given to an account by guesswork, and never shown through any account's API.
 */
export const unroutedInbound = sqliteTable(
  'unrouted_inbound',
  {
    id: integer().primaryKey({ autoIncrement: true }),
    /** The transport's id for the message: a redelivery is stored once. */
    transportHandle: text(),
    fromNumber: text().notNull(),
    toNumber: text().notNull(),
    content: text().notNull().default(''),
    mediaUrl: text().notNull().default(''),
    service: text().notNull(),
    transportGroupId: text(),
    participants: text({ mode: 'json' }).$type<string[]>(),
    source: text().notNull(),
    receivedAt: integer().notNull(),
  },
  (t) => [uniqueIndex('unrouted_inbound_transport_handle_uq').on(t.source, t.transportHandle).where(sql`transport_handle is not null`)],
);

/**
 * The outbox: one row per (event, destination), written in the transaction that records the event,
 * so a committed change always has its callback waiting. `webhookId` is sent as `webhook-id` on
 * every attempt; `seq` orders a message's callbacks.
 */
export const webhookDeliveries = sqliteTable(
  'webhook_deliveries',
  {
    seq: integer().primaryKey({ autoIncrement: true }),
    webhookId: text().notNull().unique(),
    accountId: text()
      .notNull()
      .references(() => accounts.id),
    messageHandle: text().notNull(),
    eventType: text({ enum: WEBHOOK_EVENT_TYPES }).notNull(),
    url: text().notNull(),
    /** The JSON body, fixed when the event is recorded so every attempt sends the same bytes. */
    payload: text().notNull(),
    state: text({ enum: DELIVERY_STATES }).notNull(),
    attemptCount: integer().notNull().default(0),
    nextAttemptAt: integer().notNull(),
    /** While `delivering`: when the claim lapses and another dispatcher may take the row back. */
    leaseExpiresAt: integer(),
    lastStatusCode: integer(),
    lastError: text(),
    createdAt: integer().notNull(),
    updatedAt: integer().notNull(),
    completedAt: integer(),
    /** The secret that signs this delivery, when not the account's own: an account webhook entry's or the globalSecret. */
    signingSecret: text(),
  },
  (t) => [
    // The dispatcher's claim: pending rows by due time, with the account so that full accounts' rows are passed over in the
    // index; partial, so a finished row leaves it rather than moving in it.
    index('webhook_deliveries_due_idx').on(t.nextAttemptAt, t.seq, t.accountId).where(sql`state = 'pending'`),
    // Lapsed leases going back to the queue, and the count of deliveries in flight.
    index('webhook_deliveries_lease_idx').on(t.leaseExpiresAt).where(sql`state = 'delivering'`),
    // Per-message order: an earlier unfinished row for the same message and URL holds back the later ones.
    index('webhook_deliveries_order_idx').on(t.messageHandle, t.url, t.seq),
    // The account's delivery log filtered by state, newest first.
    index('webhook_deliveries_account_idx').on(t.accountId, t.state, t.seq),
    // The account's whole delivery log, newest first.
    index('webhook_deliveries_account_seq_idx').on(t.accountId, t.seq),
    // Replay of deliveries given up since a time (CLI and API); partial, so delivering costs it nothing.
    index('webhook_deliveries_failed_idx').on(t.completedAt).where(sql`state = 'failed'`),
  ],
);

/** Every attempt at a delivery: when, how long, what came back. */
export const webhookAttempts = sqliteTable(
  'webhook_attempts',
  {
    // No AUTOINCREMENT: nothing needs ids never reused, and its counter row was one more page per commit.
    id: integer().primaryKey(),
    deliverySeq: integer()
      .notNull()
      .references(() => webhookDeliveries.seq),
    attemptedAt: integer().notNull(),
    durationMs: integer().notNull(),
    statusCode: integer(),
    /** The first 2 KiB of the receiver's answer. */
    responseExcerpt: text().notNull().default(''),
    error: text(),
  },
  (t) => [index('webhook_attempts_delivery_idx').on(t.deliverySeq, t.id)],
);

/**
 * The sandbox network's planned steps for each message it carries: its state lives here, not in
 * timers, so a restart resumes every timeline where it stopped.
 */
export const sandboxSteps = sqliteTable(
  'sandbox_steps',
  {
    id: integer().primaryKey({ autoIncrement: true }),
    /** Our handle (the sandbox uses it as its own). */
    messageHandle: text().notNull(),
    stepIndex: integer().notNull(),
    kind: text({ enum: ['status', 'typing', 'inbound'] }).notNull(),
    status: text({ enum: MESSAGE_STATUSES }),
    errorCode: integer(),
    errorMessage: text(),
    wasDowngraded: integer({ mode: 'boolean' }),
    /** Inbound and typing steps: who writes (or types), what, and in which of our groups. */
    inboundFrom: text(),
    inboundContent: text(),
    groupId: text(),
    dueAt: integer().notNull(),
  },
  (t) => [
    // Handing the same message over twice plans nothing new.
    uniqueIndex('sandbox_steps_message_step_uq').on(t.messageHandle, t.stepIndex),
    // The simulator's clock: next due step first.
    index('sandbox_steps_due_idx').on(t.dueAt, t.id),
  ],
);

/** Answers to sends made with an Idempotency-Key, replayed for 24 h. */
export const idempotencyKeys = sqliteTable(
  'idempotency_keys',
  {
    accountId: text()
      .notNull()
      .references(() => accounts.id),
    key: text().notNull(),
    requestHash: text().notNull(),
    responseStatus: integer().notNull(),
    responseBody: text().notNull(),
    createdAt: integer().notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.key] })],
);

/** Web inbox logins: the cookie carries a random token, the database only its SHA-256. */
export const inboxSessions = sqliteTable(
  'inbox_sessions',
  {
    tokenHash: text().primaryKey(),
    accountId: text()
      .notNull()
      .references(() => accounts.id),
    /** The account's secret hash at login: rotating the API secret ends every session opened with the old one. */
    apiSecretHash: text().notNull(),
    createdAt: integer().notNull(),
    expiresAt: integer().notNull(),
  },
  (t) => [
    // Login sweeps the account's expired sessions.
    index('inbox_sessions_account_idx').on(t.accountId, t.expiresAt),
  ],
);

/**
 * How far the account has read each conversation in the inbox: through the newest message shown,
 * as (date_sent, message id) so a message of the same millisecond arriving later is still unread.
 */
export const inboxReads = sqliteTable(
  'inbox_reads',
  {
    accountId: text()
      .notNull()
      .references(() => accounts.id),
    conversationKind: text({ enum: ['contact', 'group'] }).notNull(),
    /** A contact id or a group id, by kind. */
    conversationId: text().notNull(),
    readThroughAt: integer().notNull(),
    readThroughId: integer().notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.conversationKind, t.conversationId] })],
);

/**
 * The account's event log (`GET /api/v2/events`): written in the transaction of the fact it
 * reports, read by id so a stream resumes after the last id it sent.
 */
export const accountEvents = sqliteTable(
  'account_events',
  {
    id: integer().primaryKey({ autoIncrement: true }),
    accountId: text()
      .notNull()
      .references(() => accounts.id),
    /**
     * The event's number in its account's log, 1, 2, 3... with no gap: the stream's event id, so no
     * account learns from its ids how busy the others are (`account_event_counters`).
     */
    seq: integer().notNull(),
    type: text().notNull(),
    /** The event's `data` object, as JSON. */
    data: text().notNull(),
    occurredAt: integer().notNull(),
  },
  (t) => [
    // A stream's catch-up and every later read: the account's events after a number.
    uniqueIndex('account_events_account_seq_uq').on(t.accountId, t.seq),
  ],
);

/**
 * The last number each account's event log gave out: kept apart from the events, so numbers never
 * repeat when retention empties a log. Taking the next number locks the row until the commit, so
 * an account's events commit in their numbers' order.
 */
export const accountEventCounters = sqliteTable('account_event_counters', {
  accountId: text()
    .primaryKey()
    .references(() => accounts.id),
  lastSeq: integer().notNull(),
});

/** Media fetched by /api/upload-media-object or set as a group photo, served at /media/{id}. */
export const mediaObjects = sqliteTable(
  'media_objects',
  {
    /** Unguessable: the URL that serves the bytes carries it and needs no credentials. */
    id: text().primaryKey(),
    accountId: text()
      .notNull()
      .references(() => accounts.id),
    sourceUrl: text().notNull(),
    contentType: text().notNull(),
    /** Null when the provider keeps the bytes (relay mode): then `remoteUrl` is where they are. */
    bytes: blob({ mode: 'buffer' }),
    byteLength: integer().notNull(),
    remoteUrl: text(),
    createdAt: integer().notNull(),
  },
  (t) => [
    index('media_objects_account_idx').on(t.accountId, t.createdAt),
    // The account's stored bytes summed for the media quota from the index: a row holds up to 5 MB.
    index('media_objects_account_bytes_idx').on(t.accountId, t.byteLength),
    // Media retention finds the oldest files.
    index('media_objects_created_idx').on(t.createdAt),
  ],
);

/** What a carrier keeps across restarts (its webhook secret, how far it has read back), one value per (carrier, key). */
export const carrierState = sqliteTable(
  'carrier_state',
  {
    carrier: text().notNull(),
    key: text().notNull(),
    value: text().notNull(),
    updatedAt: integer().notNull(),
  },
  (t) => [primaryKey({ columns: [t.carrier, t.key] })],
);
