import { sql } from 'drizzle-orm';
import {
  bigint,
  bigserial,
  boolean,
  customType,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { DELIVERY_STATES, WEBHOOK_EVENT_TYPES } from '../../domain/delivery-views.ts';
import { PLANS } from '../../domain/limits.ts';
import { MESSAGE_STATUSES } from '../../domain/status.ts';
import { WEBHOOK_TYPES } from '../../domain/webhook-types.ts';

/**
 * The PostgreSQL twin of ../schema.ts, table for table and column for column, so the rows the
 * store hands up are the same whichever database runs (test/db/postgres-schema.test.ts holds the
 * two together). Only the column types differ: epoch milliseconds in bigint, booleans as boolean,
 * JSON in jsonb, bytes in bytea. What each table and index is for is said once, in ../schema.ts.
 */

/** Bytes as a Buffer, as better-sqlite3 gives blobs. */
const bytea = customType<{ data: Buffer; driverData: Buffer }>({ dataType: () => 'bytea' });

/** Text that compares and sorts byte-wise, as SQLite compares text, whatever the database's collation. */
const byteText = customType<{ data: string; driverData: string }>({ dataType: () => 'text collate "C"' });

/**
 * The transaction that wrote the row (pg_current_xact_id, the top-level one even in a savepoint).
 * Rows of transactions older than the oldest still running (pg_snapshot_xmin) are final: a reader
 * that walks in (writing transaction, serial) order and stops there never sees a row appear behind
 * it, which a serial alone, taken before commit, cannot promise (final-rows.ts).
 */
const writingTransaction = () => bigint({ mode: 'number' }).notNull().default(sql`(pg_current_xact_id()::text)::bigint`);

export const accounts = pgTable('accounts', {
  id: text().primaryKey(),
  email: text().notNull().unique(),
  plan: text({ enum: PLANS }).notNull(),
  apiKeyId: text().notNull().unique(),
  apiSecretHash: text().notNull(),
  webhookSecret: text(),
  previousWebhookSecret: text(),
  previousWebhookSecretExpiresAt: bigint({ mode: 'number' }),
  webhookGlobalSecret: text(),
  upstreamKeyId: text().unique(),
  upstreamSecret: text(),
  createdAt: bigint({ mode: 'number' }).notNull(),
});

export const serviceNumbers = pgTable(
  'service_numbers',
  {
    number: text().primaryKey(),
    accountId: text()
      .notNull()
      .references(() => accounts.id),
    pinnedCount: bigint({ mode: 'number' }).notNull().default(0),
    carrier: text(),
    createdAt: bigint({ mode: 'number' }).notNull(),
  },
  (t) => [index('service_numbers_account_load_idx').on(t.accountId, t.pinnedCount)],
);

export const numberPins = pgTable(
  'number_pins',
  {
    accountId: text()
      .notNull()
      .references(() => accounts.id),
    endUserNumber: text().notNull(),
    lineNumber: text()
      .notNull()
      .references(() => serviceNumbers.number),
    createdAt: bigint({ mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.endUserNumber] }), index('number_pins_line_idx').on(t.lineNumber)],
);

export const webhookSubscriptions = pgTable(
  'webhook_subscriptions',
  {
    accountId: text()
      .notNull()
      .references(() => accounts.id),
    type: text({ enum: WEBHOOK_TYPES }).notNull(),
    url: text().notNull(),
    secret: text(),
    sendblueNumbers: jsonb().$type<string[]>(),
    givenAsObject: boolean().notNull().default(false),
    createdAt: bigint({ mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.type, t.url] })],
);

export const contacts = pgTable(
  'contacts',
  {
    id: byteText().primaryKey(),
    accountId: text()
      .notNull()
      .references(() => accounts.id),
    phone: byteText().notNull(),
    firstName: byteText().notNull(),
    lastName: byteText().notNull(),
    companyName: text().notNull().default(''),
    assignedToEmail: text().notNull().default(''),
    tags: jsonb().$type<string[]>().notNull().default([]),
    customVariables: jsonb().$type<Record<string, string>>().notNull().default({}),
    optedOut: boolean().notNull().default(false),
    deletedAt: bigint({ mode: 'number' }),
    lastMessageAt: bigint({ mode: 'number' }),
    previewText: text().notNull().default(''),
    lastInboundAt: bigint({ mode: 'number' }),
    lastOutboundAt: bigint({ mode: 'number' }),
    createdAt: bigint({ mode: 'number' }).notNull(),
    updatedAt: bigint({ mode: 'number' }).notNull().default(0),
  },
  (t) => [
    uniqueIndex('contacts_account_phone_uq').on(t.accountId, t.phone),
    // NULLs first, where SQLite sorts them: one index then serves both directions of that order.
    index('contacts_account_last_date_idx').on(t.accountId, t.lastMessageAt.asc().nullsFirst(), t.id),
    index('contacts_account_first_name_idx').on(t.accountId, t.firstName, t.id),
    index('contacts_account_last_name_idx').on(t.accountId, t.lastName, t.id),
    index('contacts_account_created_idx').on(t.accountId, t.createdAt, t.id),
    index('contacts_account_updated_idx').on(t.accountId, t.updatedAt, t.id),
    index('contacts_account_live_idx').on(t.accountId, t.deletedAt).where(sql`deleted_at is null`),
  ],
);

export const groups = pgTable(
  'groups',
  {
    id: text().primaryKey(),
    accountId: text()
      .notNull()
      .references(() => accounts.id),
    memberKey: text().notNull(),
    lineNumber: text()
      .notNull()
      .references(() => serviceNumbers.number),
    displayName: text().notNull().default(''),
    transportGroupId: text(),
    photoMediaId: text(),
    createdAt: bigint({ mode: 'number' }).notNull(),
    updatedAt: bigint({ mode: 'number' }).notNull(),
  },
  (t) => [
    // A hash of the set: a large group's key outgrows what a btree entry can hold (2704 bytes).
    uniqueIndex('groups_account_members_line_uq').on(t.accountId, sql`md5(member_key)`, t.lineNumber),
    uniqueIndex('groups_account_transport_group_uq').on(t.accountId, t.transportGroupId).where(sql`transport_group_id is not null`),
    index('groups_line_idx').on(t.lineNumber),
    index('groups_photo_idx').on(t.photoMediaId).where(sql`photo_media_id is not null`),
  ],
);

export const groupMembers = pgTable(
  'group_members',
  {
    groupId: text()
      .notNull()
      .references(() => groups.id),
    number: text().notNull(),
    addedAt: bigint({ mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.groupId, t.number] }), index('group_members_number_idx').on(t.number, t.groupId)],
);

export const messages = pgTable(
  'messages',
  {
    id: bigserial({ mode: 'number' }).primaryKey(),
    handle: text().notNull().unique(),
    accountId: text()
      .notNull()
      .references(() => accounts.id),
    isOutbound: boolean().notNull(),
    messageType: text({ enum: ['message', 'group'] }).notNull(),
    status: text({ enum: MESSAGE_STATUSES }).notNull(),
    errorCode: bigint({ mode: 'number' }),
    errorMessage: text(),
    errorDetail: text(),
    content: text().notNull().default(''),
    mediaUrl: text().notNull().default(''),
    sendStyle: text().notNull().default(''),
    statusCallback: text(),
    lineNumber: text().notNull(),
    number: text().notNull(),
    recipients: jsonb().$type<string[]>(),
    contactId: text().references(() => contacts.id),
    groupId: text().references(() => groups.id),
    wasDowngraded: boolean(),
    replyToHandle: text(),
    replyToPartIndex: bigint({ mode: 'number' }),
    seatId: text(),
    optedOut: boolean().notNull().default(false),
    transportHandle: text(),
    handedOverAt: bigint({ mode: 'number' }),
    dateSent: bigint({ mode: 'number' }).notNull(),
    dateUpdated: bigint({ mode: 'number' }).notNull(),
  },
  (t) => [
    uniqueIndex('messages_transport_handle_uq').on(t.transportHandle).where(sql`transport_handle is not null`),
    index('messages_awaiting_handover_idx').on(t.id).where(sql`handed_over_at is null and is_outbound and status = 'QUEUED'`),
    index('messages_account_date_idx').on(t.accountId, t.dateSent, t.id, t.isOutbound),
    index('messages_account_contact_date_idx').on(t.accountId, t.contactId, t.dateSent, t.id),
    index('messages_account_number_date_idx').on(t.accountId, t.number, t.dateSent, t.id),
    index('messages_account_group_date_idx').on(t.accountId, t.groupId, t.dateSent, t.id),
    index('messages_account_status_date_idx').on(t.accountId, t.status, t.dateSent, t.id),
  ],
);

export const statusEvents = pgTable(
  'status_events',
  {
    id: text().primaryKey(),
    messageHandle: text().notNull(),
    status: text({ enum: MESSAGE_STATUSES }).notNull(),
    errorCode: bigint({ mode: 'number' }),
    errorMessage: text(),
    source: text().notNull(),
    sourceEventId: text(),
    applied: boolean().notNull(),
    implied: boolean().notNull().default(false),
    notAppliedReason: text(),
    receivedAt: bigint({ mode: 'number' }).notNull(),
    repeats: bigint({ mode: 'number' }).notNull().default(0),
    /** Insertion order, where SQLite has rowid: a message's events of one millisecond, and where `tail` stands. */
    seq: bigserial({ mode: 'number' }).notNull(),
    writtenBy: writingTransaction(),
  },
  (t) => [
    index('status_events_handle_idx').on(t.messageHandle, t.receivedAt, t.seq),
    uniqueIndex('status_events_applied_uq').on(t.messageHandle, t.status).where(sql`applied`),
    uniqueIndex('status_events_source_event_uq').on(t.source, t.sourceEventId).where(sql`source_event_id is not null`),
    // `tail`: a position (a seq) found, then the events after it in (transaction, seq) order.
    uniqueIndex('status_events_seq_uq').on(t.seq),
    index('status_events_written_idx').on(t.writtenBy, t.seq),
  ],
);

export const orphanStatusEvents = pgTable(
  'orphan_status_events',
  {
    id: bigserial({ mode: 'number' }).primaryKey(),
    transportHandle: text().notNull(),
    status: text({ enum: MESSAGE_STATUSES }).notNull(),
    errorCode: bigint({ mode: 'number' }),
    errorMessage: text(),
    wasDowngraded: boolean(),
    source: text().notNull(),
    sourceEventId: text(),
    receivedAt: bigint({ mode: 'number' }).notNull(),
  },
  (t) => [
    index('orphan_status_events_handle_idx').on(t.transportHandle, t.id),
    uniqueIndex('orphan_status_events_source_event_uq').on(t.source, t.sourceEventId).where(sql`source_event_id is not null`),
  ],
);

export const unroutedInbound = pgTable(
  'unrouted_inbound',
  {
    id: bigserial({ mode: 'number' }).primaryKey(),
    transportHandle: text(),
    fromNumber: text().notNull(),
    toNumber: text().notNull(),
    content: text().notNull().default(''),
    mediaUrl: text().notNull().default(''),
    service: text().notNull(),
    transportGroupId: text(),
    participants: jsonb().$type<string[]>(),
    source: text().notNull(),
    receivedAt: bigint({ mode: 'number' }).notNull(),
  },
  (t) => [uniqueIndex('unrouted_inbound_transport_handle_uq').on(t.source, t.transportHandle).where(sql`transport_handle is not null`)],
);

export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    seq: bigserial({ mode: 'number' }).primaryKey(),
    webhookId: text().notNull().unique(),
    accountId: text()
      .notNull()
      .references(() => accounts.id),
    messageHandle: text().notNull(),
    eventType: text({ enum: WEBHOOK_EVENT_TYPES }).notNull(),
    url: text().notNull(),
    payload: text().notNull(),
    state: text({ enum: DELIVERY_STATES }).notNull(),
    attemptCount: bigint({ mode: 'number' }).notNull().default(0),
    nextAttemptAt: bigint({ mode: 'number' }).notNull(),
    leaseExpiresAt: bigint({ mode: 'number' }),
    lastStatusCode: bigint({ mode: 'number' }),
    lastError: text(),
    createdAt: bigint({ mode: 'number' }).notNull(),
    updatedAt: bigint({ mode: 'number' }).notNull(),
    completedAt: bigint({ mode: 'number' }),
    signingSecret: text(),
  },
  (t) => [
    index('webhook_deliveries_due_idx').on(t.nextAttemptAt, t.seq, t.accountId).where(sql`state = 'pending'`),
    index('webhook_deliveries_lease_idx').on(t.leaseExpiresAt).where(sql`state = 'delivering'`),
    index('webhook_deliveries_order_idx').on(t.messageHandle, t.url, t.seq),
    index('webhook_deliveries_account_idx').on(t.accountId, t.state, t.seq),
    index('webhook_deliveries_account_seq_idx').on(t.accountId, t.seq),
    index('webhook_deliveries_failed_idx').on(t.completedAt).where(sql`state = 'failed'`),
  ],
);

export const webhookAttempts = pgTable(
  'webhook_attempts',
  {
    id: bigserial({ mode: 'number' }).primaryKey(),
    deliverySeq: bigint({ mode: 'number' })
      .notNull()
      .references(() => webhookDeliveries.seq),
    attemptedAt: bigint({ mode: 'number' }).notNull(),
    durationMs: bigint({ mode: 'number' }).notNull(),
    statusCode: bigint({ mode: 'number' }),
    responseExcerpt: text().notNull().default(''),
    error: text(),
  },
  (t) => [index('webhook_attempts_delivery_idx').on(t.deliverySeq, t.id)],
);

export const sandboxSteps = pgTable(
  'sandbox_steps',
  {
    id: bigserial({ mode: 'number' }).primaryKey(),
    messageHandle: text().notNull(),
    stepIndex: bigint({ mode: 'number' }).notNull(),
    kind: text({ enum: ['status', 'typing', 'inbound'] }).notNull(),
    status: text({ enum: MESSAGE_STATUSES }),
    errorCode: bigint({ mode: 'number' }),
    errorMessage: text(),
    wasDowngraded: boolean(),
    inboundFrom: text(),
    inboundContent: text(),
    groupId: text(),
    dueAt: bigint({ mode: 'number' }).notNull(),
  },
  (t) => [uniqueIndex('sandbox_steps_message_step_uq').on(t.messageHandle, t.stepIndex), index('sandbox_steps_due_idx').on(t.dueAt, t.id)],
);

export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    accountId: text()
      .notNull()
      .references(() => accounts.id),
    key: text().notNull(),
    requestHash: text().notNull(),
    responseStatus: bigint({ mode: 'number' }).notNull(),
    responseBody: text().notNull(),
    createdAt: bigint({ mode: 'number' }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.accountId, t.key] }),
    // Pruning by age: SQLite walks rowid, which PostgreSQL has no twin of.
    index('idempotency_keys_created_idx').on(t.createdAt),
  ],
);

export const inboxSessions = pgTable(
  'inbox_sessions',
  {
    tokenHash: text().primaryKey(),
    accountId: text()
      .notNull()
      .references(() => accounts.id),
    apiSecretHash: text().notNull(),
    createdAt: bigint({ mode: 'number' }).notNull(),
    expiresAt: bigint({ mode: 'number' }).notNull(),
  },
  (t) => [
    index('inbox_sessions_account_idx').on(t.accountId, t.expiresAt),
    // Pruning every account's expired sessions: SQLite walks rowid, which PostgreSQL has no twin of.
    index('inbox_sessions_expires_idx').on(t.expiresAt),
  ],
);

export const inboxReads = pgTable(
  'inbox_reads',
  {
    accountId: text()
      .notNull()
      .references(() => accounts.id),
    conversationKind: text({ enum: ['contact', 'group'] }).notNull(),
    conversationId: text().notNull(),
    readThroughAt: bigint({ mode: 'number' }).notNull(),
    readThroughId: bigint({ mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.conversationKind, t.conversationId] })],
);

export const accountEvents = pgTable(
  'account_events',
  {
    id: bigserial({ mode: 'number' }).primaryKey(),
    accountId: text()
      .notNull()
      .references(() => accounts.id),
    seq: bigint({ mode: 'number' }).notNull(),
    type: text().notNull(),
    data: text().notNull(),
    occurredAt: bigint({ mode: 'number' }).notNull(),
  },
  (t) => [uniqueIndex('account_events_account_seq_uq').on(t.accountId, t.seq)],
);

export const accountEventCounters = pgTable('account_event_counters', {
  accountId: text()
    .primaryKey()
    .references(() => accounts.id),
  lastSeq: bigint({ mode: 'number' }).notNull(),
});

export const mediaObjects = pgTable(
  'media_objects',
  {
    id: text().primaryKey(),
    accountId: text()
      .notNull()
      .references(() => accounts.id),
    sourceUrl: text().notNull(),
    contentType: text().notNull(),
    bytes: bytea(),
    byteLength: bigint({ mode: 'number' }).notNull(),
    remoteUrl: text(),
    createdAt: bigint({ mode: 'number' }).notNull(),
  },
  (t) => [
    index('media_objects_account_idx').on(t.accountId, t.createdAt),
    index('media_objects_account_bytes_idx').on(t.accountId, t.byteLength),
    index('media_objects_created_idx').on(t.createdAt),
  ],
);

/*
 * Tables only a database that several instances share needs: SQLite keeps this state in the
 * memory of the one process that owns the file, so these have no twin in ../schema.ts.
 */

/** One send rate limit's token bucket per key (an account), shared by every instance. */
export const rateLimitBuckets = pgTable('rate_limit_buckets', {
  key: text().primaryKey(),
  tokens: doublePrecision().notNull(),
  updatedAt: bigint({ mode: 'number' }).notNull(),
});

/** Failed inbox sign-ins counted in a window that starts at the first failure, per key id and per client address. */
export const signInFailures = pgTable(
  'sign_in_failures',
  {
    key: text().primaryKey(),
    failures: integer().notNull(),
    startedAt: bigint({ mode: 'number' }).notNull(),
  },
  (t) => [index('sign_in_failures_started_idx').on(t.startedAt)],
);

/** The tables above, which test/db/postgres-schema.test.ts does not look for in the SQLite schema. */
export const POSTGRES_ONLY_TABLES: readonly string[] = ['rate_limit_buckets', 'sign_in_failures'];

export const carrierState = pgTable(
  'carrier_state',
  {
    carrier: text().notNull(),
    key: text().notNull(),
    value: text().notNull(),
    updatedAt: bigint({ mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.carrier, t.key] })],
);
