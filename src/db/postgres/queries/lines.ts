import { asc, eq, sql } from 'drizzle-orm';
import type { LineCarrierRow } from '../../sqlite/queries/lines.ts';
import type { PgDb } from '../db.ts';
import { serviceNumbers } from '../schema.ts';

/** The account's lines with when each was added (lines.getState), and the carrier of each line (the carriers' routing). */
export function lineQueries(db: PgDb) {
  return {
    async ofAccount(accountId: string): Promise<{ number: string; createdAt: number; carrier: string | null }[]> {
      return db
        .select({ number: serviceNumbers.number, createdAt: serviceNumbers.createdAt, carrier: serviceNumbers.carrier })
        .from(serviceNumbers)
        .where(eq(serviceNumbers.accountId, accountId))
        .orderBy(asc(serviceNumbers.createdAt), sql`${serviceNumbers.number} collate "C"`);
    },
    async carrierOf(number: string): Promise<string | null | undefined> {
      const [row] = await db.select({ carrier: serviceNumbers.carrier }).from(serviceNumbers).where(eq(serviceNumbers.number, number));
      return row?.carrier;
    },
    async all(): Promise<LineCarrierRow[]> {
      return db
        .select({ number: serviceNumbers.number, accountId: serviceNumbers.accountId, carrier: serviceNumbers.carrier })
        .from(serviceNumbers)
        .orderBy(sql`${serviceNumbers.number} collate "C"`);
    },
  };
}
