import { asc, eq, sql } from 'drizzle-orm';
import { serviceNumbers } from '../../schema.ts';
import type { Db } from '../connection.ts';

/** The account's lines with when each was added, for lines.getState. */
export function lineQueries(db: Db) {
  const ofAccount = db
    .select({ number: serviceNumbers.number, createdAt: serviceNumbers.createdAt })
    .from(serviceNumbers)
    .where(eq(serviceNumbers.accountId, sql.placeholder('accountId')))
    .orderBy(asc(serviceNumbers.createdAt), asc(serviceNumbers.number))
    .prepare();
  return {
    ofAccount(accountId: string): { number: string; createdAt: number }[] {
      return ofAccount.all({ accountId });
    },
  };
}
