import { and, asc, count, eq, sql } from 'drizzle-orm';
import { type LoadedLine, spreadOverLines } from '../../line-spread.ts';
import type { AccountRow } from '../../rows.ts';
import { accounts, groups, numberPins, serviceNumbers } from '../../schema.ts';
import type { Db } from '../connection.ts';
import { rowReader } from '../row-reader.ts';

export function accountQueries(db: Db) {
  const client = db.$client;
  const account = rowReader(accounts);
  /*
   * Runs on every authenticated request. One row comes back for any key id (all nulls for an
   * unknown one), so a stranger's miss steps and maps a row just as a known key id does.
   */
  const byKeyId = client
    .prepare(`select ${account.selectList('a')} from (select ? as key_id) as probe left join accounts a on a.api_key_id = probe.key_id`)
    .raw(true);
  // Runs on every applied status change (to build its callback).
  const byId = client.prepare(`select ${account.selectList()} from accounts where id = ?`).raw(true);
  // Two primary-key lookups: joined, the planner may scan a small accounts table after ANALYZE.
  const ownerOfLine = db
    .select({ accountId: serviceNumbers.accountId })
    .from(serviceNumbers)
    .where(eq(serviceNumbers.number, sql.placeholder('number')))
    .prepare();
  // A first message to someone reads the pins and lines and pins them: positional statements, without drizzle's mapping of each call.
  const pinFor = client.prepare('select line_number from number_pins where account_id = ? and end_user_number = ?').pluck();
  const leastLoadedLine = client
    .prepare('select number from service_numbers where account_id = ? order by pinned_count, created_at, number limit 1')
    .pluck();
  const linesOf = client.prepare(
    'select account_id accountId, number, pinned_count pinnedCount from service_numbers where account_id = ? order by created_at, number',
  );
  const insertPin = client.prepare('insert into number_pins (account_id, end_user_number, line_number, created_at) values (?, ?, ?, ?)');
  const countPin = client.prepare('update service_numbers set pinned_count = pinned_count + 1 where number = ?');
  // Sends with an explicit from_number check it against these.
  const serviceNumbersOf = db
    .select({ number: serviceNumbers.number })
    .from(serviceNumbers)
    .where(eq(serviceNumbers.accountId, sql.placeholder('accountId')))
    .orderBy(asc(serviceNumbers.createdAt), asc(serviceNumbers.number))
    .prepare();

  function findById(id: string): AccountRow | undefined {
    const values = byId.get(id) as unknown[] | undefined;
    return values && account.read(values);
  }

  return {
    insertAccount(row: AccountRow): void {
      db.insert(accounts).values(row).run();
    },
    findByKeyId(apiKeyId: string): AccountRow | undefined {
      const row = account.read(byKeyId.get(apiKeyId) as unknown[]);
      return row.id === null ? undefined : row;
    },
    findById,
    /** The account that owns this line, if any: every inbound message asks. */
    findByServiceNumber(number: string): AccountRow | undefined {
      const line = ownerOfLine.get({ number });
      return line && findById(line.accountId);
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
    /** The account's own provider credentials (relay mode); false when another account has that key id. */
    setUpstreamCredentials(accountId: string, upstreamKeyId: string, upstreamSecret: string): boolean {
      const taken = db.select({ id: accounts.id }).from(accounts).where(eq(accounts.upstreamKeyId, upstreamKeyId)).get();
      if (taken && taken.id !== accountId) return false;
      db.update(accounts).set({ upstreamKeyId, upstreamSecret }).where(eq(accounts.id, accountId)).run();
      return true;
    },

    /** False when the number is already taken (by any account). `carrier` delivers its messages (null: the sandbox or the relay). */
    insertServiceNumber(accountId: string, number: string, createdAt: number, carrier: string | null = null): boolean {
      const result = db.insert(serviceNumbers).values({ accountId, number, createdAt, carrier }).onConflictDoNothing().run();
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
    /**
     * Unpins the line's end users (they are pinned anew at their next message) and moves its groups
     * to `heir`, except a group whose members already have one there; answers how many groups stay.
     */
    releaseLine(number: string, heir: string): number {
      db.delete(numberPins).where(eq(numberPins.lineNumber, number)).run();
      client
        .prepare(
          `update groups set line_number = ? where line_number = ? and not exists
             (select 1 from groups g where g.account_id = groups.account_id and g.member_key = groups.member_key and g.line_number = ?)`,
        )
        .run(heir, number, heir);
      return db.select({ total: count() }).from(groups).where(eq(groups.lineNumber, number)).get()?.total ?? 0;
    },
    listServiceNumbers(accountId: string): string[] {
      return serviceNumbersOf.all({ accountId }).map((row) => row.number);
    },
    leastLoadedLine(accountId: string): string | undefined {
      return leastLoadedLine.get(accountId) as string | undefined;
    },
    /** leastLoadedLine of each call, spread as if each call's person were pinned before the next (line-spread.ts). */
    leastLoadedLineMany(calls: readonly [accountId: string][]): (string | undefined)[] {
      const accountIds = [...new Set(calls.map(([accountId]) => accountId))];
      return spreadOverLines(
        calls,
        accountIds.flatMap((accountId) => linesOf.all(accountId) as LoadedLine[]),
      );
    },
    findPinnedLine(accountId: string, endUserNumber: string): string | undefined {
      return pinFor.get(accountId, endUserNumber) as string | undefined;
    },
    pinEndUser(accountId: string, endUserNumber: string, lineNumber: string, createdAt: number): void {
      insertPin.run(accountId, endUserNumber, lineNumber, createdAt);
      countPin.run(lineNumber);
    },
  };
}
