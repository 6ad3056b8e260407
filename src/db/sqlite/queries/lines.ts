import { asc, eq, sql } from 'drizzle-orm';
import { serviceNumbers } from '../../schema.ts';
import type { Db } from '../connection.ts';

/** A line with the carrier that delivers it (null: the sandbox or the relay). */
export type LineCarrierRow = { number: string; accountId: string; carrier: string | null };

/** The account's lines with when each was added (lines.getState), and the carrier of each line (the carriers' routing). */
export function lineQueries(db: Db) {
  const ofAccount = db
    .select({ number: serviceNumbers.number, createdAt: serviceNumbers.createdAt, carrier: serviceNumbers.carrier })
    .from(serviceNumbers)
    .where(eq(serviceNumbers.accountId, sql.placeholder('accountId')))
    .orderBy(asc(serviceNumbers.createdAt), asc(serviceNumbers.number))
    .prepare();
  // Every hand-over through the carriers asks: a primary-key lookup.
  const carrierOf = db
    .select({ carrier: serviceNumbers.carrier })
    .from(serviceNumbers)
    .where(eq(serviceNumbers.number, sql.placeholder('number')))
    .prepare();
  return {
    ofAccount(accountId: string): { number: string; createdAt: number; carrier: string | null }[] {
      return ofAccount.all({ accountId });
    },
    /** The line's carrier: null when it has none, undefined when no account owns the number. */
    carrierOf(number: string): string | null | undefined {
      return carrierOf.get({ number })?.carrier;
    },
    /** Every line of every account, for a carrier's start-up checks (an operator has a few, not thousands). */
    all(): LineCarrierRow[] {
      return db
        .select({ number: serviceNumbers.number, accountId: serviceNumbers.accountId, carrier: serviceNumbers.carrier })
        .from(serviceNumbers)
        .orderBy(asc(serviceNumbers.number))
        .all();
    },
  };
}
