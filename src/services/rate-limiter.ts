import { ErrorCode } from '../domain/error-codes.ts';
import { type TokenBucket, takeToken } from '../domain/token-bucket.ts';
import { AppError } from './app-error.ts';
import type { Clock } from './clock.ts';

export interface RateLimiter {
  /** Rejects with a 4001 AppError (with Retry-After) when `key` is over its limit. */
  consume(key: string): Promise<void>;
}

/** Token buckets every instance on one database shares (`db/postgres/shared-limits.ts`). */
export interface SharedTokenBuckets {
  take(key: string, now: number, capacity: number, windowMs: number): Promise<{ allowed: true } | { allowed: false; retryAfterMs: number }>;
}

const WINDOW_MS = 60_000;

function rateLimited(perMinute: number, retryAfterMs: number): AppError {
  return new AppError(ErrorCode.rateLimited, `Rate limit exceeded: at most ${perMinute} sends per minute`, {
    retryAfterSeconds: Math.max(1, Math.ceil(retryAfterMs / 1000)),
  });
}

/** Per-process limiter: a single textrelay process owns its SQLite file, so memory is the right place. */
export function createRateLimiter(clock: Clock, perMinute: number): RateLimiter {
  if (perMinute <= 0) return { consume: async () => {} };
  const buckets = new Map<string, TokenBucket>();
  return {
    async consume(key) {
      const result = takeToken(buckets.get(key), clock.now(), perMinute, WINDOW_MS);
      buckets.set(key, result.bucket);
      if (!result.allowed) throw rateLimited(perMinute, result.retryAfterMs);
    },
  };
}

/** The same limit kept in the database that several instances share: N per minute is N across all of them. */
export function createSharedRateLimiter(clock: Clock, perMinute: number, buckets: SharedTokenBuckets): RateLimiter {
  if (perMinute <= 0) return { consume: async () => {} };
  return {
    async consume(key) {
      const result = await buckets.take(key, clock.now(), perMinute, WINDOW_MS);
      if (!result.allowed) throw rateLimited(perMinute, result.retryAfterMs);
    },
  };
}
