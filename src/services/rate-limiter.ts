import { ErrorCode } from '../domain/error-codes.ts';
import { type TokenBucket, takeToken } from '../domain/token-bucket.ts';
import { AppError } from './app-error.ts';
import type { Clock } from './clock.ts';

export interface RateLimiter {
  /** Throws a 4001 AppError (with Retry-After) when `key` is over its limit. */
  consume(key: string): void;
}

/**
 * Per-process limiter: a single textrelay process owns its database file, so memory is the
 * right place; a multi-instance deployment would move the buckets next to the shared database.
 */
export function createRateLimiter(clock: Clock, perMinute: number): RateLimiter {
  if (perMinute <= 0) return { consume: () => {} };
  const buckets = new Map<string, TokenBucket>();
  return {
    consume(key) {
      const result = takeToken(buckets.get(key), clock.now(), perMinute, 60_000);
      buckets.set(key, result.bucket);
      if (!result.allowed) {
        throw new AppError(ErrorCode.rateLimited, `Rate limit exceeded: at most ${perMinute} sends per minute`, {
          retryAfterSeconds: Math.max(1, Math.ceil(result.retryAfterMs / 1000)),
        });
      }
    },
  };
}
