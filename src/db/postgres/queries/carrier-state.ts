import { and, eq } from 'drizzle-orm';
import type { PgDb } from '../db.ts';
import { carrierState } from '../schema.ts';

/** The PostgreSQL twin of ../../sqlite/queries/carrier-state.ts. */
export function carrierStateQueries(db: PgDb) {
  return {
    async get(carrier: string, key: string): Promise<string | undefined> {
      const [row] = await db
        .select({ value: carrierState.value })
        .from(carrierState)
        .where(and(eq(carrierState.carrier, carrier), eq(carrierState.key, key)));
      return row?.value;
    },
    async set(carrier: string, key: string, value: string, now: number): Promise<void> {
      await db
        .insert(carrierState)
        .values({ carrier, key, value, updatedAt: now })
        .onConflictDoUpdate({ target: [carrierState.carrier, carrierState.key], set: { value, updatedAt: now } });
    },
  };
}
