import { and, eq } from 'drizzle-orm';
import { carrierState } from '../../schema.ts';
import type { Db } from '../connection.ts';

/** A carrier's few values kept across restarts; read at start and once per read-back, so not prepared. */
export function carrierStateQueries(db: Db) {
  return {
    get(carrier: string, key: string): string | undefined {
      return db
        .select({ value: carrierState.value })
        .from(carrierState)
        .where(and(eq(carrierState.carrier, carrier), eq(carrierState.key, key)))
        .get()?.value;
    },
    set(carrier: string, key: string, value: string, now: number): void {
      db.insert(carrierState)
        .values({ carrier, key, value, updatedAt: now })
        .onConflictDoUpdate({ target: [carrierState.carrier, carrierState.key], set: { value, updatedAt: now } })
        .run();
    },
  };
}
