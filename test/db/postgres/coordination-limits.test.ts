import { afterEach, describe, expect, it } from 'vitest';
import { openPostgresSharedLimits } from '../../../src/db/postgres/shared-limits.ts';
import { ErrorCode } from '../../../src/domain/error-codes.ts';
import { createSharedRateLimiter, WRITES } from '../../../src/services/rate-limiter.ts';
import { createSharedSignInThrottle } from '../../../src/services/sign-in-throttle.ts';
import { FakeClock } from '../../helpers/clock.ts';
import { freshPostgresDatabase } from '../../helpers/postgres-database.ts';

const closers: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** The shared limits of two instances on one fresh database, each on the pool of its own the runtime opens. */
async function twoInstances() {
  const database = await freshPostgresDatabase();
  const [a, b] = await Promise.all([openPostgresSharedLimits(database.url), openPostgresSharedLimits(database.url)]);
  closers.push(database.close, a.close, b.close);
  return [a, b] as const;
}

/** What a consume answered: 'ok', or the 4001 refusal's Retry-After. */
async function outcome(consume: Promise<void>): Promise<'ok' | { code: number; retryAfterSeconds?: number }> {
  try {
    await consume;
    return 'ok';
  } catch (error) {
    const { code, retryAfterSeconds } = error as { code: number; retryAfterSeconds?: number };
    return { code, retryAfterSeconds };
  }
}

describe('the send rate limit on PostgreSQL', () => {
  it('is N per minute across instances, refilling with time', async () => {
    const clock = new FakeClock();
    const [a, b] = await twoInstances();
    const onA = createSharedRateLimiter(clock, 3, a.tokenBuckets);
    const onB = createSharedRateLimiter(clock, 3, b.tokenBuckets);
    expect(await outcome(onA.consume('acc_1'))).toBe('ok');
    expect(await outcome(onB.consume('acc_1'))).toBe('ok');
    expect(await outcome(onA.consume('acc_1'))).toBe('ok');
    // A token comes back every 20 s.
    expect(await outcome(onB.consume('acc_1'))).toEqual({ code: ErrorCode.rateLimited, retryAfterSeconds: 20 });
    expect(await outcome(onA.consume('acc_2'))).toBe('ok');
    clock.advance(15_000);
    expect(await outcome(onA.consume('acc_1'))).toEqual({ code: ErrorCode.rateLimited, retryAfterSeconds: 5 });
    clock.advance(5_000);
    expect(await outcome(onB.consume('acc_1'))).toBe('ok');
    expect(await outcome(onA.consume('acc_1'))).toMatchObject({ code: ErrorCode.rateLimited });
  });

  it('lets exactly N through when the instances take at once', async () => {
    const clock = new FakeClock();
    const [a, b] = await twoInstances();
    const limiters = [createSharedRateLimiter(clock, 7, a.tokenBuckets), createSharedRateLimiter(clock, 7, b.tokenBuckets)];
    const outcomes = await Promise.all(Array.from({ length: 20 }, (_, i) => outcome(limiters[i % 2]!.consume('acc_1'))));
    expect(outcomes.filter((answer) => answer === 'ok')).toHaveLength(7);
  });
});

describe('the write limit on PostgreSQL', () => {
  it("takes a bulk write's rows at once across instances, or none of them", async () => {
    const clock = new FakeClock();
    const [a, b] = await twoInstances();
    const onA = createSharedRateLimiter(clock, 6, a.tokenBuckets, WRITES);
    const onB = createSharedRateLimiter(clock, 6, b.tokenBuckets, WRITES);
    expect(await outcome(onA.consume('writes:acc_1', 4))).toBe('ok');
    // Two rows left: three are refused whole, until a third token is back 10 s later.
    expect(await outcome(onB.consume('writes:acc_1', 3))).toEqual({ code: ErrorCode.rateLimited, retryAfterSeconds: 10 });
    expect(await outcome(onB.consume('writes:acc_1', 2))).toBe('ok');
    expect(await outcome(onA.consume('writes:acc_1'))).toMatchObject({ code: ErrorCode.rateLimited });
    clock.advance(60_000);
    // More rows than a whole minute allows drain the bucket rather than waiting for ever.
    expect(await outcome(onA.consume('writes:acc_1', 50))).toBe('ok');
    expect(await outcome(onB.consume('writes:acc_1'))).toMatchObject({ code: ErrorCode.rateLimited });
  });
});

describe('the inbox sign-in throttle on PostgreSQL', () => {
  const settings = { maxFailures: 3, windowMs: 60_000, maxTracked: 10 };

  it('counts the failures made through every instance against one limit', async () => {
    const clock = new FakeClock();
    const [a, b] = await twoInstances();
    const onA = createSharedSignInThrottle(clock, settings, a.failureWindows);
    const onB = createSharedSignInThrottle(clock, settings, b.failureWindows);
    expect(await onA.failed('key_1', '10.0.0.1')).toEqual([]);
    clock.advance(1_000);
    expect(await onB.failed('key_1', '10.0.0.2')).toEqual([]);
    expect(await onA.failed('key_1', '10.0.0.2')).toEqual(['key_id']);
    expect(await onB.lockedForMs('key_1', '10.0.0.9')).toBe(59_000);
    expect(await onA.lockedForMs('key_2', '10.0.0.9')).toBe(0);

    // A key id that signs in starts afresh; its addresses keep their counts.
    await onB.succeeded('key_1');
    expect(await onA.lockedForMs('key_1', '10.0.0.9')).toBe(0);
    expect(await onA.failed('key_3', '10.0.0.2')).toEqual(['address']);
    // The address's window started at its first failure, a second after key_1's.
    expect(await onB.lockedForMs('key_4', '10.0.0.2')).toBe(60_000);

    // Windows end, and a new one starts at the next failure.
    clock.advance(60_000);
    expect(await onB.lockedForMs('key_4', '10.0.0.2')).toBe(0);
    expect(await onB.failed('key_4', '10.0.0.2')).toEqual([]);
  });

  it('removes the windows that ended when a new one starts', async () => {
    const clock = new FakeClock();
    const [a] = await twoInstances();
    const throttle = createSharedSignInThrottle(clock, settings, a.failureWindows);
    await throttle.failed('key_old', '10.0.0.1');
    clock.advance(60_000);
    await throttle.failed('key_new', '10.0.0.2');
    const windows = await a.failureWindows.read(['key_id:key_old', 'address:10.0.0.1', 'key_id:key_new', 'address:10.0.0.2']);
    expect(windows.map((window) => window.key).sort()).toEqual(['address:10.0.0.2', 'key_id:key_new']);
  });
});
