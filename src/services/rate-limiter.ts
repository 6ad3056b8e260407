import { ErrorCode } from '../domain/error-codes.ts';
import { type TokenBucket, takeToken } from '../domain/token-bucket.ts';
import { AppError } from './app-error.ts';
import type { Clock } from './clock.ts';

export interface RateLimiter {
  /**
   * Takes `count` tokens of `key` (one per row a request writes), at most a whole minute's worth;
   * rejects with a 4001 AppError (with Retry-After) when `key` has too few left.
   */
  consume(key: string, count?: number): Promise<void>;
}

/** Token buckets every instance on one database shares (`db/postgres/shared-limits.ts`). */
export interface SharedTokenBuckets {
  take(
    key: string,
    now: number,
    capacity: number,
    windowMs: number,
    count?: number,
  ): Promise<{ allowed: true } | { allowed: false; retryAfterMs: number }>;
}

/** What a limiter counts, as its refusal names it: `sends`, or `writes` with the setting that sets it. */
export type LimitedUnit = { unit: string; setting?: string };

const WINDOW_MS = 60_000;

function rateLimited(perMinute: number, limited: LimitedUnit, retryAfterMs: number): AppError {
  const setting = limited.setting ? ` (${limited.setting})` : '';
  return new AppError(ErrorCode.rateLimited, `Rate limit exceeded: at most ${perMinute} ${limited.unit} per minute${setting}`, {
    retryAfterSeconds: Math.max(1, Math.ceil(retryAfterMs / 1000)),
  });
}

const SENDS: LimitedUnit = { unit: 'sends' };

/** Per-process limiter: a single textrelay process owns its SQLite file, so memory is the right place. */
export function createRateLimiter(clock: Clock, perMinute: number, limited: LimitedUnit = SENDS): RateLimiter {
  if (perMinute <= 0) return { consume: async () => {} };
  const buckets = new Map<string, TokenBucket>();
  return {
    async consume(key, count = 1) {
      const result = takeToken(buckets.get(key), clock.now(), perMinute, WINDOW_MS, Math.min(count, perMinute));
      buckets.set(key, result.bucket);
      if (!result.allowed) throw rateLimited(perMinute, limited, result.retryAfterMs);
    },
  };
}

/** The same limit kept in the database that several instances share: N per minute is N across all of them. */
export function createSharedRateLimiter(
  clock: Clock,
  perMinute: number,
  buckets: SharedTokenBuckets,
  limited: LimitedUnit = SENDS,
): RateLimiter {
  if (perMinute <= 0) return { consume: async () => {} };
  return {
    async consume(key, count = 1) {
      const result = await buckets.take(key, clock.now(), perMinute, WINDOW_MS, Math.min(count, perMinute));
      if (!result.allowed) throw rateLimited(perMinute, limited, result.retryAfterMs);
    },
  };
}

export const WRITES: LimitedUnit = { unit: 'writes', setting: 'TEXTRELAY_WRITE_RATE_LIMIT_PER_MINUTE' };

export const LOOKUPS: LimitedUnit = { unit: 'carrier lookups', setting: 'TEXTRELAY_LOOKUP_RATE_LIMIT_PER_MINUTE' };

/** Counts `rows` writes of an account against its write limit (its own bucket, apart from its sends'). */
export function limitWrites(deps: { writeRateLimiter: RateLimiter }, accountId: string, rows = 1): Promise<void> {
  return deps.writeRateLimiter.consume(`writes:${accountId}`, rows);
}
