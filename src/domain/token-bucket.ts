/** A token bucket as plain data, so the rate rule is testable without timers. */
export type TokenBucket = { tokens: number; updatedAt: number };

export type TakeResult = { allowed: true; bucket: TokenBucket } | { allowed: false; bucket: TokenBucket; retryAfterMs: number };

/** `capacity` tokens at most, refilled continuously at `capacity` per `windowMs`; takes `count` at once, or none. */
export function takeToken(bucket: TokenBucket | undefined, now: number, capacity: number, windowMs: number, count = 1): TakeResult {
  const refillPerMs = capacity / windowMs;
  const elapsed = bucket ? Math.max(0, now - bucket.updatedAt) : 0;
  const tokens = bucket ? Math.min(capacity, bucket.tokens + elapsed * refillPerMs) : capacity;
  if (tokens >= count) return { allowed: true, bucket: { tokens: tokens - count, updatedAt: now } };
  return {
    allowed: false,
    bucket: { tokens, updatedAt: now },
    retryAfterMs: Math.ceil((count - tokens) / refillPerMs),
  };
}
