import { asc, eq, sql } from 'drizzle-orm';
import type { PgDb } from '../db.ts';
import { serviceNumbers } from '../schema.ts';

/** The account's lines with when each was added, for lines.getState. */
export function lineQueries(db: PgDb) {
  return {
    async ofAccount(accountId: string): Promise<{ number: string; createdAt: number }[]> {
      return db
        .select({ number: serviceNumbers.number, createdAt: serviceNumbers.createdAt })
        .from(serviceNumbers)
        .where(eq(serviceNumbers.accountId, accountId))
        .orderBy(asc(serviceNumbers.createdAt), sql`${serviceNumbers.number} collate "C"`);
    },
  };
}
