import { sql } from 'drizzle-orm';
import { openPostgres } from './connection.ts';
import type { PgDb } from './db.ts';
import { rateLimitBuckets, signInFailures } from './schema.ts';

/** What one take from a token bucket answers: allowed, or how long until a token is back. */
export type BucketTake = { allowed: true } | { allowed: false; retryAfterMs: number };

/** A failure window of one key: how many failures since it started. */
export type FailureWindow = { key: string; failures: number; startedAt: number };

/**
 * The rate limits' token buckets in the shared database: one UPSERT takes tokens atomically,
 * so N instances together let through `capacity` per window, as one process would (domain/token-bucket.ts).
 */
export function postgresTokenBuckets(db: PgDb) {
  const b = rateLimitBuckets;
  return {
    async take(key: string, now: number, capacity: number, windowMs: number, count = 1): Promise<BucketTake> {
      const refillPerMs = capacity / windowMs;
      // The bucket's tokens refilled up to `now` (never back in time, should instances' clocks differ).
      const refilled = sql`least(${capacity}::float8, b.tokens + greatest(0, ${now}::bigint - b.updated_at) * ${refillPerMs}::float8)`;
      // The outer select reads the statement's snapshot: on a refusal, the bucket as the refusal found it.
      const [row] = await db.execute<{ allowed: boolean; tokens: number | null; updated_at: string | null }>(sql`
        with taken as (
          insert into ${b} as b (key, tokens, updated_at) values (${key}, ${capacity - count}::float8, ${now}::bigint)
          on conflict (key) do update set tokens = ${refilled} - ${count}::float8, updated_at = greatest(b.updated_at, ${now}::bigint)
            where ${refilled} >= ${count}::float8
          returning 1
        )
        select exists (select 1 from taken) as allowed, b.tokens, b.updated_at
        from (select 1) as one left join ${b} as b on b.key = ${key}`);
      if (row?.allowed) return { allowed: true };
      const tokens = row?.tokens == null ? 0 : Math.min(capacity, row.tokens + Math.max(0, now - Number(row.updated_at)) * refillPerMs);
      return { allowed: false, retryAfterMs: Math.max(1, Math.ceil((count - tokens) / refillPerMs)) };
    },
  };
}

/**
 * The inbox sign-in throttle's failure windows in the shared database: each failure counts with one
 * UPSERT that restarts a window that has ended, so every instance counts against the same limit.
 */
export function postgresFailureWindows(db: PgDb) {
  const f = signInFailures;
  return {
    /** Counts a failure of `key`; answers the failures of its window, this one included. */
    async add(key: string, now: number, windowMs: number): Promise<number> {
      const ended = sql`${f.startedAt} + ${windowMs}::bigint <= ${now}::bigint`;
      const [row] = await db
        .insert(f)
        .values({ key, failures: 1, startedAt: now })
        .onConflictDoUpdate({
          target: f.key,
          set: {
            failures: sql`case when ${ended} then 1 else ${f.failures} + 1 end`,
            startedAt: sql`case when ${ended} then ${now}::bigint else ${f.startedAt} end`,
          },
        })
        .returning({ failures: f.failures });
      // A window that starts is the moment to drop the ones that ended (sign_in_failures_started_idx).
      if (row!.failures === 1) await db.delete(f).where(sql`${f.startedAt} <= ${now - windowMs}::bigint`);
      return row!.failures;
    },
    async read(keys: readonly string[]): Promise<FailureWindow[]> {
      return db.select().from(f).where(sql`${f.key} in ${keys}`);
    },
    async forget(key: string): Promise<void> {
      await db.delete(f).where(sql`${f.key} = ${key}`);
    },
  };
}

export type PostgresSharedLimits = {
  tokenBuckets: ReturnType<typeof postgresTokenBuckets>;
  failureWindows: ReturnType<typeof postgresFailureWindows>;
};

/** Both, on `db`. */
export function postgresSharedLimits(db: PgDb): PostgresSharedLimits {
  return { tokenBuckets: postgresTokenBuckets(db), failureWindows: postgresFailureWindows(db) };
}

/**
 * Both, on a pool of two connections of their own: a send takes its token inside its transaction
 * (with an Idempotency-Key), and had every connection of the main pool such a transaction, a token
 * taken from that pool would wait for ever.
 */
export async function openPostgresSharedLimits(url: string): Promise<PostgresSharedLimits & { close(): Promise<void> }> {
  const { db, close } = await openPostgres(url, { poolSize: 2 });
  return { ...postgresSharedLimits(db), close };
}
