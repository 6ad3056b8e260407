import { describe, expect, it } from 'vitest';
import { createSignInThrottle } from '../../src/services/sign-in-throttle.ts';
import { FakeClock } from '../helpers/clock.ts';

const WINDOW_MS = 60_000;

describe('sign-in throttle memory', () => {
  it('follows at most maxTracked key ids, forgetting the oldest window first', async () => {
    const clock = new FakeClock();
    const throttle = createSignInThrottle(clock, { maxFailures: 2, windowMs: WINDOW_MS, maxTracked: 3 });
    await throttle.failed('key_a', 'address-1');
    await throttle.failed('key_a', 'address-2');
    expect(await throttle.lockedForMs('key_a', 'address-3')).toBe(WINDOW_MS);

    clock.advance(1000);
    for (const keyId of ['key_b', 'key_c', 'key_d']) await throttle.failed(keyId, `address-${keyId}`);
    expect(await throttle.lockedForMs('key_a', 'address-3')).toBe(0);
  });

  it('drops windows that have ended before forgetting live ones', async () => {
    const clock = new FakeClock();
    const throttle = createSignInThrottle(clock, { maxFailures: 2, windowMs: WINDOW_MS, maxTracked: 3 });
    await throttle.failed('key_old', 'address-old');
    clock.advance(WINDOW_MS);
    await throttle.failed('key_a', 'address-1');
    await throttle.failed('key_a', 'address-1');
    await throttle.failed('key_b', 'address-2');
    await throttle.failed('key_c', 'address-3');
    expect(await throttle.lockedForMs('key_a', 'address-9')).toBe(WINDOW_MS);
    expect(await throttle.lockedForMs('key_z', 'address-1')).toBe(WINDOW_MS);
  });
});
