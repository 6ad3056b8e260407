/**
 * The harness of the PostgreSQL query tests: each test gets a fresh in-memory SQLite and a fresh
 * PostgreSQL database (postgres-database.ts), both migrated, so it makes the same calls on the
 * SQLite query module (the spec) and on its PostgreSQL twin and compares the answers; `connect`
 * opens more pools on the same database, for races between instances.
 */
import { getTableName, is, sql, type Table } from 'drizzle-orm';
import { PgTable } from 'drizzle-orm/pg-core';
import { drizzle } from 'drizzle-orm/postgres-js';
import { SQLiteTable } from 'drizzle-orm/sqlite-core';
import postgres from 'postgres';
import { afterEach, beforeEach, expect } from 'vitest';
import type { PgPool } from '../../src/db/postgres/connection.ts';
import type { PgDb } from '../../src/db/postgres/db.ts';
import * as pgSchema from '../../src/db/postgres/schema.ts';
import type { AccountRow, ContactRow } from '../../src/db/rows.ts';
import * as sqliteSchema from '../../src/db/schema.ts';
import { closeDatabase, type Db, migrateDatabase, openDatabase } from '../../src/db/sqlite/connection.ts';
import type { MessageInsert, StatusEventInsert } from '../../src/db/sqlite/queries/messages.ts';
import { createSqliteQueries, type SqliteQueries } from '../../src/db/sqlite/queries.ts';
import type { Queries } from '../../src/db/store.ts';
import { freshPostgresDatabase } from './postgres-database.ts';

export type Twins = {
  /** This test's PostgreSQL database, through its pool, and its URL. */
  pg: PgPool;
  url: string;
  /** This test's SQLite database, and its queries: the answers PostgreSQL's must equal. */
  sqliteDb: Db;
  sqlite: SqliteQueries;
  /** Inserts the same rows into the table of this SQL name in both databases. */
  seed(table: string, rows: Record<string, unknown>[]): Promise<void>;
  /** Another pool on this test's PostgreSQL database, as another instance has (closed after the test). */
  connect(poolSize?: number): PgDb;
};

function tablesByName(schema: Record<string, unknown>, kind: typeof PgTable | typeof SQLiteTable): Map<string, Table> {
  const tables = Object.values(schema).filter((value) => is(value, kind)) as Table[];
  return new Map(tables.map((table) => [getTableName(table), table]));
}
const pgTables = tablesByName(pgSchema, PgTable);
const sqliteTables = tablesByName(sqliteSchema, SQLiteTable);

/** Gives each test of the file its twins, made before it and closed after it; the object answers for the running test. */
export function useTwins(): Twins {
  const twins = {} as Twins;
  let closers: (() => Promise<void>)[] = [];

  beforeEach(async () => {
    // Test files share this module (isolate: false): each test numbers its messages from h-1 again.
    handles = 0;
    const database = await freshPostgresDatabase();
    const sqliteDb = openDatabase(':memory:');
    migrateDatabase(sqliteDb);
    closers = [() => database.close(), async () => closeDatabase(sqliteDb)];
    Object.assign(twins, {
      pg: database.db,
      url: database.url,
      sqliteDb,
      sqlite: createSqliteQueries(sqliteDb),
      async seed(table, rows) {
        sqliteDb
          .insert(sqliteTables.get(table) as never)
          .values(rows as never)
          .run();
        await database.db.insert(pgTables.get(table) as never).values(rows as never);
      },
      connect(poolSize = 4) {
        const client = postgres(database.url, { max: poolSize, onnotice: () => {} });
        closers.push(() => client.end());
        return drizzle({ client, schema: pgSchema, casing: 'snake_case' });
      },
    } satisfies Twins);
  });

  afterEach(async () => {
    // A test that failed half-way leaves no transaction open to keep a pool from closing.
    await Promise.allSettled([...stillOpen].map((commit) => commit()));
    await Promise.all(closers.reverse().map((close) => close()));
  });

  return twins;
}

/** Calls on one module of both databases: `same` runs a call on each and expects equal answers. */
export type TwinModule<Module> = {
  /** Runs `call` on SQLite, then on PostgreSQL, expects both answers equal, and returns PostgreSQL's. */
  same<T>(call: (module: Module) => Promise<T>): Promise<T>;
};

/** SQLite's `name` module beside `postgres`, its PostgreSQL twin (typed as the store's, which checks its methods). */
export function twinModule<Name extends keyof Queries>(twins: Twins, name: Name, postgres: Queries[Name]): TwinModule<Queries[Name]> {
  const sqlite = answering(twins.sqlite[name] as never) as Queries[Name];
  return {
    async same(call) {
      const expected = await call(sqlite);
      const answer = await call(postgres);
      expect(answer).toEqual(expected);
      return answer;
    },
  };
}

type Module = Record<string, (...args: never[]) => unknown>;
type Answering<M extends Module> = { [K in keyof M]: (...args: Parameters<M[K]>) => Promise<Awaited<ReturnType<M[K]>>> };

/** A SQLite query module answering through promises, as the store hands it up: one story then runs on both. */
export function answering<M extends Module>(module: M): Answering<M> {
  return Object.fromEntries(
    Object.entries(module).map(([name, call]) => [name, async (...args: never[]) => call.apply(module, args)]),
  ) as unknown as Answering<M>;
}

const stillOpen = new Set<() => Promise<void>>();

/** A transaction left open until `commit`, for interleaving two connections' work by hand. */
export function heldTransaction(db: PgDb): { tx: Promise<PgDb>; commit(): Promise<void> } {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  let opened!: (tx: PgDb) => void;
  const tx = new Promise<PgDb>((resolve) => {
    opened = resolve;
  });
  const done = db.transaction(async (inside) => {
    opened(inside as unknown as PgDb);
    await gate;
  });
  async function commit() {
    stillOpen.delete(commit);
    release();
    await done;
  }
  stillOpen.add(commit);
  return { tx, commit };
}

/** Resolves once some session waits for a lock another one holds. */
export async function someoneWaitsForALock(db: PgDb): Promise<void> {
  for (let tries = 0; tries < 200; tries++) {
    const [row] = await db.execute<{ waiting: string }>(
      sql`select count(*) as waiting from pg_stat_activity where wait_event_type = 'Lock' and datname = current_database()`,
    );
    if (Number(row!.waiting) > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('nobody waits for a lock');
}

/* The same small world in both databases: two accounts, their lines, contacts and groups. */

export const T0 = 1_700_000_000_000;
export const ACCOUNT = 'acc_1';
export const OTHER_ACCOUNT = 'acc_2';
export const LINE = '+15550000001';
export const ALICE = '+14155550100';
export const BOB = '+14155550101';
export const CAROL = '+14155550102';

/** An account with every field set, created at `createdAt`. */
export function accountRow(id: string, createdAt: number): AccountRow {
  return {
    id,
    email: `${id}@example.com`,
    plan: 'blue',
    apiKeyId: `key-${id}`,
    apiSecretHash: `hash-${id}`,
    webhookSecret: null,
    previousWebhookSecret: null,
    previousWebhookSecretExpiresAt: null,
    webhookGlobalSecret: `global-${id}`,
    upstreamKeyId: `upstream-key-${id}`,
    upstreamSecret: `upstream-secret-${id}`,
    createdAt,
  };
}

/** The two accounts, the first with a webhook secret of its own. */
export async function seedAccounts(twins: Twins): Promise<void> {
  await twins.seed('accounts', [
    { ...accountRow(ACCOUNT, T0), webhookSecret: 'whsec_one', webhookGlobalSecret: null },
    { ...accountRow(OTHER_ACCOUNT, T0), webhookGlobalSecret: null },
  ]);
}

/** The accounts, their lines, two contacts of the first and two groups. */
export async function seedWorld(twins: Twins): Promise<void> {
  await seedAccounts(twins);
  await twins.seed('service_numbers', [
    { number: LINE, accountId: ACCOUNT, createdAt: T0 },
    { number: '+15550000002', accountId: OTHER_ACCOUNT, createdAt: T0 },
  ]);
  await twins.seed('contacts', [
    { id: 'con_alice', accountId: ACCOUNT, phone: ALICE, firstName: 'Alice', lastName: 'A', createdAt: T0 },
    { id: 'con_bob', accountId: ACCOUNT, phone: BOB, firstName: 'Bob', lastName: 'B', createdAt: T0 },
  ]);
  await twins.seed('groups', [
    { id: 'grp_ab', accountId: ACCOUNT, memberKey: `${ALICE},${BOB}`, lineNumber: LINE, createdAt: T0, updatedAt: T0 },
    { id: 'grp_abc', accountId: ACCOUNT, memberKey: `${ALICE},${BOB},${CAROL}`, lineNumber: LINE, createdAt: T0, updatedAt: T0 },
  ]);
  await twins.seed('group_members', [
    { groupId: 'grp_ab', number: ALICE, addedAt: T0 },
    { groupId: 'grp_ab', number: BOB, addedAt: T0 },
    { groupId: 'grp_abc', number: ALICE, addedAt: T0 },
    { groupId: 'grp_abc', number: BOB, addedAt: T0 },
    { groupId: 'grp_abc', number: CAROL, addedAt: T0 },
  ]);
}

/** A contact of account `a`, blank but for what `fields` says. */
export function contactRow(id: string, phone: string, fields: Partial<ContactRow> = {}): ContactRow {
  return {
    id,
    accountId: 'a',
    phone,
    firstName: '',
    lastName: '',
    companyName: '',
    lastMessageAt: null,
    previewText: '',
    lastInboundAt: null,
    lastOutboundAt: null,
    assignedToEmail: '',
    tags: [],
    customVariables: {},
    optedOut: false,
    deletedAt: null,
    createdAt: 1_000,
    updatedAt: 1_000,
    ...fields,
  };
}

let handles = 0;

/** A message of the account: one-to-one with `number` unless a group is given. */
export function message(overrides: Partial<MessageInsert> = {}): MessageInsert {
  handles += 1;
  return {
    handle: `h-${handles}`,
    accountId: ACCOUNT,
    isOutbound: true,
    messageType: overrides.groupId ? 'group' : 'message',
    status: 'QUEUED',
    content: `message ${handles}`,
    mediaUrl: '',
    sendStyle: '',
    statusCallback: null,
    lineNumber: LINE,
    number: ALICE,
    recipients: null,
    contactId: overrides.groupId ? null : 'con_alice',
    groupId: null,
    dateSent: T0 + handles,
    dateUpdated: T0 + handles,
    ...overrides,
  };
}

/** A status event row a write applied: no error, reported by the API unless `fields` say who. */
export function appliedEventOf(
  fields: Pick<StatusEventInsert, 'id' | 'messageHandle' | 'status' | 'receivedAt'> & Partial<StatusEventInsert>,
): StatusEventInsert {
  return { errorCode: null, errorMessage: null, source: 'api', applied: true, implied: false, notAppliedReason: null, ...fields };
}

/** The QUEUED event a send's whole write stores with its message. */
export function queuedEventOf(handle: string, receivedAt: number): StatusEventInsert {
  return appliedEventOf({ id: `evt_${handle}`, messageHandle: handle, status: 'QUEUED', receivedAt });
}

/** A status event row of message `h-1`, applied, received at T0. */
export function statusEvent(overrides: Record<string, unknown>): Record<string, unknown> {
  return {
    messageHandle: 'h-1',
    status: 'QUEUED',
    errorCode: null,
    errorMessage: null,
    source: 'api',
    sourceEventId: null,
    applied: true,
    implied: false,
    notAppliedReason: null,
    receivedAt: T0,
    ...overrides,
  };
}

/** A webhook delivery of the account, pending and due at T0. */
export function delivery(seq: number, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    seq,
    webhookId: `msg_${seq}`,
    accountId: ACCOUNT,
    messageHandle: 'h-1',
    eventType: 'message.status',
    url: 'https://hooks.example.com/a',
    payload: '{}',
    state: 'pending',
    attemptCount: 0,
    nextAttemptAt: T0,
    createdAt: T0,
    updatedAt: T0,
    ...overrides,
  };
}

/** An inbound message for a line no account owns. */
export function unroutedRow(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    transportHandle: null,
    fromNumber: ALICE,
    toNumber: '+15559999999',
    content: 'hello?',
    mediaUrl: '',
    service: 'SMS',
    transportGroupId: null,
    participants: null,
    source: 'upstream',
    receivedAt: T0,
    ...overrides,
  };
}
