import { and, asc, count, eq, sql } from 'drizzle-orm';
import type { AccountRow } from '../../rows.ts';
import { accounts, groups, numberPins, serviceNumbers } from '../../schema.ts';
import type { Db } from '../connection.ts';
import { placeholdersFor, unplannedParam } from '../placeholders.ts';

export function accountQueries(db: Db) {
  /*
   * Runs on every authenticated request. One row comes back for any key id (all nulls for an
   * unknown one), so a stranger's miss steps and maps a row just as a known key id does.
   */
  const byKeyId = db
    .select({ account: accounts })
    .from(sql`(select ${sql.placeholder('apiKeyId')} as key_id) as probe`)
    .leftJoin(accounts, eq(accounts.apiKeyId, sql`probe.key_id`))
    .prepare();
  // Runs on every applied status change (to build its callback).
  const byId = db
    .select()
    .from(accounts)
    .where(eq(accounts.id, sql.placeholder('id')))
    .prepare();
  // Two primary-key lookups: joined, the planner may scan a small accounts table after ANALYZE.
  const ownerOfLine = db
    .select({ accountId: serviceNumbers.accountId })
    .from(serviceNumbers)
    .where(eq(serviceNumbers.number, sql.placeholder('number')))
    .prepare();
  const pinFor = db
    .select({ lineNumber: numberPins.lineNumber })
    .from(numberPins)
    .where(and(eq(numberPins.accountId, sql.placeholder('accountId')), eq(numberPins.endUserNumber, sql.placeholder('number'))))
    .prepare();
  const leastLoadedLine = db
    .select({ number: serviceNumbers.number })
    .from(serviceNumbers)
    .where(eq(serviceNumbers.accountId, sql.placeholder('accountId')))
    .orderBy(asc(serviceNumbers.pinnedCount), asc(serviceNumbers.createdAt), asc(serviceNumbers.number))
    .limit(unplannedParam(1))
    .prepare();
  // A first message to someone pins them to a line: prepared once, like the lookups above.
  const insertPin = db
    .insert(numberPins)
    .values(placeholdersFor(['accountId', 'endUserNumber', 'lineNumber', 'createdAt'] as const))
    .prepare();
  const countPin = db
    .update(serviceNumbers)
    .set({ pinnedCount: sql`${serviceNumbers.pinnedCount} + 1` })
    .where(eq(serviceNumbers.number, sql.placeholder('lineNumber')))
    .prepare();
  // Sends with an explicit from_number check it against these.
  const serviceNumbersOf = db
    .select({ number: serviceNumbers.number })
    .from(serviceNumbers)
    .where(eq(serviceNumbers.accountId, sql.placeholder('accountId')))
    .orderBy(asc(serviceNumbers.createdAt), asc(serviceNumbers.number))
    .prepare();

  return {
    insertAccount(row: AccountRow): void {
      db.insert(accounts).values(row).run();
    },
    findByKeyId(apiKeyId: string): AccountRow | undefined {
      return byKeyId.get({ apiKeyId })?.account ?? undefined;
    },
    findById(id: string): AccountRow | undefined {
      return byId.get({ id });
    },
    /** The account that owns this line, if any: every inbound message asks. */
    findByServiceNumber(number: string): AccountRow | undefined {
      const line = ownerOfLine.get({ number });
      return line && byId.get({ id: line.accountId });
    },
    findByEmail(email: string): AccountRow | undefined {
      return db.select().from(accounts).where(eq(accounts.email, email)).get();
    },
    list(): AccountRow[] {
      return db.select().from(accounts).orderBy(asc(accounts.createdAt), asc(accounts.email)).all();
    },
    count(): number {
      return db.select({ total: count() }).from(accounts).get()?.total ?? 0;
    },
    updateSecretHash(accountId: string, apiSecretHash: string): void {
      db.update(accounts).set({ apiSecretHash }).where(eq(accounts.id, accountId)).run();
    },

    /** False when the number is already taken (by any account). */
    insertServiceNumber(accountId: string, number: string, createdAt: number): boolean {
      const result = db.insert(serviceNumbers).values({ accountId, number, createdAt }).onConflictDoNothing().run();
      return result.changes === 1;
    },
    /** Removes the account's line; false when the account has no such line. */
    deleteServiceNumber(accountId: string, number: string): boolean {
      return (
        db
          .delete(serviceNumbers)
          .where(and(eq(serviceNumbers.accountId, accountId), eq(serviceNumbers.number, number)))
          .run().changes === 1
      );
    },
    /** End users pinned to the line and groups living on it: what still depends on it. */
    lineUsers(number: string): { pinnedEndUsers: number; groups: number } {
      const pinned = db.select({ total: count() }).from(numberPins).where(eq(numberPins.lineNumber, number)).get()?.total ?? 0;
      const onLine = db.select({ total: count() }).from(groups).where(eq(groups.lineNumber, number)).get()?.total ?? 0;
      return { pinnedEndUsers: pinned, groups: onLine };
    },
    listServiceNumbers(accountId: string): string[] {
      return serviceNumbersOf.all({ accountId }).map((row) => row.number);
    },
    leastLoadedLine(accountId: string): string | undefined {
      return leastLoadedLine.get({ accountId })?.number;
    },
    findPinnedLine(accountId: string, endUserNumber: string): string | undefined {
      return pinFor.get({ accountId, number: endUserNumber })?.lineNumber;
    },
    pinEndUser(accountId: string, endUserNumber: string, lineNumber: string, createdAt: number): void {
      insertPin.run({ accountId, endUserNumber, lineNumber, createdAt });
      countPin.run({ lineNumber });
    },
  };
}
