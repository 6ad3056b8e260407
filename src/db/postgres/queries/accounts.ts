import { and, asc, count, eq, sql } from 'drizzle-orm';
import { spreadOverLines } from '../../line-spread.ts';
import type { AccountRow } from '../../rows.ts';
import type { PgDb } from '../db.ts';
import { accounts, groups, numberPins, serviceNumbers } from '../schema.ts';
import { preparedOnce } from './prepared-once.ts';

const p = sql.placeholder;

const leastLoaded = (db: PgDb) =>
  db
    .select({ number: serviceNumbers.number })
    .from(serviceNumbers)
    .where(eq(serviceNumbers.accountId, p('accountId')))
    .orderBy(asc(serviceNumbers.pinnedCount), asc(serviceNumbers.createdAt), sql`${serviceNumbers.number} collate "C"`)
    .limit(1);
/** Every line of the accounts asked with its load, in `leastLoaded`'s order among lines of the same load. */
const linesByLoad = preparedOnce('lines_by_load', (db) =>
  db
    .select({ accountId: serviceNumbers.accountId, number: serviceNumbers.number, pinnedCount: serviceNumbers.pinnedCount })
    .from(serviceNumbers)
    .where(sql`${serviceNumbers.accountId} = any(${p('accountIds')}::text[])`)
    .orderBy(asc(serviceNumbers.createdAt), sql`${serviceNumbers.number} collate "C"`),
);
const leastLoadedFree = preparedOnce('least_loaded_free_line', (db) => leastLoaded(db).for('update', { skipLocked: true }));
const leastLoadedAny = preparedOnce('least_loaded_line', leastLoaded);

const pinnedLine = preparedOnce('pinned_line', (db) =>
  db
    .select({ lineNumber: numberPins.lineNumber })
    .from(numberPins)
    .where(and(eq(numberPins.accountId, p('accountId')), eq(numberPins.endUserNumber, p('endUserNumber')))),
);

const endUserPinned = preparedOnce('end_user_pinned', (db) => {
  const placeholders = {
    accountId: p('accountId'),
    endUserNumber: p('endUserNumber'),
    lineNumber: p('lineNumber'),
    createdAt: p('createdAt'),
  };
  // pinWrites's insert takes placeholders as it takes values; its type names only values.
  const [pinned, counted] = pinWrites(db, placeholders as unknown as typeof numberPins.$inferInsert);
  return db.with(pinned, counted).select({ lineNumber: pinned.lineNumber }).from(pinned);
});

export function accountQueries(db: PgDb) {
  const byId = async (id: string): Promise<AccountRow | undefined> => {
    const [row] = await db.select().from(accounts).where(eq(accounts.id, id));
    return row;
  };
  const countOf = async (rows: Promise<{ total: number }[]>): Promise<number> => (await rows)[0]?.total ?? 0;

  return {
    async insertAccount(row: AccountRow): Promise<void> {
      await db.insert(accounts).values(row);
    },
    /**
     * Runs on every authenticated request. One row comes back for any key id (all nulls for an
     * unknown one), so a stranger's miss steps and maps a row just as a known key id does.
     */
    async findByKeyId(apiKeyId: string): Promise<AccountRow | undefined> {
      const [row] = await db
        .select({ account: accounts })
        .from(sql`(select ${apiKeyId}::text as key_id) as probe`)
        .leftJoin(accounts, eq(accounts.apiKeyId, sql`probe.key_id`));
      return row?.account ?? undefined;
    },
    findById: byId,
    /** The account that owns this line, if any: every inbound message asks. */
    async findByServiceNumber(number: string): Promise<AccountRow | undefined> {
      const [line] = await db.select({ accountId: serviceNumbers.accountId }).from(serviceNumbers).where(eq(serviceNumbers.number, number));
      return line && byId(line.accountId);
    },
    async findByEmail(email: string): Promise<AccountRow | undefined> {
      const [row] = await db.select().from(accounts).where(eq(accounts.email, email));
      return row;
    },
    async list(): Promise<AccountRow[]> {
      return db.select().from(accounts).orderBy(asc(accounts.createdAt), sql`${accounts.email} collate "C"`);
    },
    async count(): Promise<number> {
      return countOf(db.select({ total: count() }).from(accounts));
    },
    async updateSecretHash(accountId: string, apiSecretHash: string): Promise<void> {
      await db.update(accounts).set({ apiSecretHash }).where(eq(accounts.id, accountId));
    },
    /** The account's own provider credentials (relay mode); false when another account has that key id. */
    async setUpstreamCredentials(accountId: string, upstreamKeyId: string, upstreamSecret: string): Promise<boolean> {
      const [taken] = await db.select({ id: accounts.id }).from(accounts).where(eq(accounts.upstreamKeyId, upstreamKeyId));
      if (taken && taken.id !== accountId) return false;
      await db.update(accounts).set({ upstreamKeyId, upstreamSecret }).where(eq(accounts.id, accountId));
      return true;
    },

    /** False when the number is already taken (by any account). */
    async insertServiceNumber(accountId: string, number: string, createdAt: number, carrier: string | null = null): Promise<boolean> {
      const inserted = await db
        .insert(serviceNumbers)
        .values({ accountId, number, createdAt, carrier })
        .onConflictDoNothing()
        .returning({ number: serviceNumbers.number });
      return inserted.length === 1;
    },
    /** Removes the account's line; false when the account has no such line. */
    async deleteServiceNumber(accountId: string, number: string): Promise<boolean> {
      const deleted = await db
        .delete(serviceNumbers)
        .where(and(eq(serviceNumbers.accountId, accountId), eq(serviceNumbers.number, number)))
        .returning({ number: serviceNumbers.number });
      return deleted.length === 1;
    },
    /** End users pinned to the line and groups living on it: what still depends on it. */
    async lineUsers(number: string): Promise<{ pinnedEndUsers: number; groups: number }> {
      const [pinnedEndUsers, onLine] = await Promise.all([
        countOf(db.select({ total: count() }).from(numberPins).where(eq(numberPins.lineNumber, number))),
        countOf(db.select({ total: count() }).from(groups).where(eq(groups.lineNumber, number))),
      ]);
      return { pinnedEndUsers, groups: onLine };
    },
    /**
     * Unpins the line's end users (they are pinned anew at their next message) and moves its groups
     * to `heir`, except a group whose members already have one there; answers how many groups stay.
     */
    async releaseLine(number: string, heir: string): Promise<number> {
      await db.delete(numberPins).where(eq(numberPins.lineNumber, number));
      await db.execute(
        sql`update groups set line_number = ${heir} where line_number = ${number} and not exists
              (select 1 from groups g where g.account_id = groups.account_id and g.member_key = groups.member_key and g.line_number = ${heir})`,
      );
      return countOf(db.select({ total: count() }).from(groups).where(eq(groups.lineNumber, number)));
    },
    /** Sends with an explicit from_number check it against these. */
    async listServiceNumbers(accountId: string): Promise<string[]> {
      const rows = await db
        .select({ number: serviceNumbers.number })
        .from(serviceNumbers)
        .where(eq(serviceNumbers.accountId, accountId))
        .orderBy(asc(serviceNumbers.createdAt), sql`${serviceNumbers.number} collate "C"`);
      return rows.map((row) => row.number);
    },
    async leastLoadedLine(accountId: string): Promise<string | undefined> {
      // A transaction pinning someone to a line holds that line's row until it commits: meanwhile
      // the least loaded of the others serves, and only when every line is held does a send wait.
      const [free] = await leastLoadedFree(db).execute({ accountId });
      if (free) return free.number;
      const [line] = await leastLoadedAny(db).execute({ accountId });
      return line?.number;
    },
    /** leastLoadedLine of each call, in one read, spread as if each call's person were pinned before the next (line-spread.ts). */
    async leastLoadedLineMany(calls: readonly [accountId: string][]): Promise<(string | undefined)[]> {
      const accountIds = [...new Set(calls.map(([accountId]) => accountId))];
      return spreadOverLines(calls, await linesByLoad(db).execute({ accountIds }));
    },
    async findPinnedLine(accountId: string, endUserNumber: string): Promise<string | undefined> {
      const [pin] = await pinnedLine(db).execute({ accountId, endUserNumber });
      return pin?.lineNumber;
    },
    /** One statement: the pin and its line's count in one round trip. */
    async pinEndUser(accountId: string, endUserNumber: string, lineNumber: string, createdAt: number): Promise<void> {
      await endUserPinned(db).execute({ accountId, endUserNumber, lineNumber, createdAt });
    },
  };
}

/** A person's pin to a line: the pin and its line's count, as CTEs of one statement (pinEndUser, a send's whole write). */
export function pinWrites(db: PgDb, pin: typeof numberPins.$inferInsert) {
  const pinned = db.$with('pinned').as(db.insert(numberPins).values(pin).returning({ lineNumber: numberPins.lineNumber }));
  const counted = db.$with('counted', {}).as(sql`
    update ${serviceNumbers} set pinned_count = pinned_count + 1 where number = (select ${pinned.lineNumber} from ${pinned})`);
  return [pinned, counted] as const;
}
