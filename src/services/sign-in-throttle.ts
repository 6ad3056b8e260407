import type { Clock } from './clock.ts';

export type SignInThrottleSettings = {
  /** Failures a key id, and a client address, may make in one window; 0 turns the throttle off. */
  maxFailures: number;
  windowMs: number;
  /** Key ids (and, apart, addresses) followed at once; past that the oldest window is forgotten. */
  maxTracked: number;
};

/** Enough for every address of a busy office and a spray of made-up key ids, in a few megabytes. */
export const SIGN_IN_THROTTLE_TRACKED = 10_000;

export type LockedBy = 'key_id' | 'address';

export interface SignInThrottle {
  /** Milliseconds until this key id and this address may try again; 0 when both may now. */
  lockedForMs(keyId: string, address: string): number;
  /** Counts a failed sign-in against both; answers what this very failure locked (usually nothing). */
  failed(keyId: string, address: string): LockedBy[];
  /** A key id that signed in starts afresh; its address keeps its count, or an attacker's own account could wipe it. */
  succeeded(keyId: string): void;
}

type Window = { failures: number; startedAt: number };

/** Failures counted in fixed windows that start at a first failure, bounded in size. */
class FailureCounts {
  // Insertion order is window-start order, since a window that restarts is inserted anew.
  private readonly windows = new Map<string, Window>();

  constructor(private readonly settings: SignInThrottleSettings) {}

  lockedUntil(key: string, now: number): number {
    const window = this.current(key, now);
    return window && window.failures >= this.settings.maxFailures ? window.startedAt + this.settings.windowMs : now;
  }

  /** Counts a failure; true when it is the one that reaches the limit. */
  add(key: string, now: number): boolean {
    const window = this.current(key, now);
    if (window) {
      window.failures += 1;
      return window.failures === this.settings.maxFailures;
    }
    this.forgetExpired(now);
    if (this.windows.size >= this.settings.maxTracked) this.windows.delete(this.windows.keys().next().value!);
    this.windows.set(key, { failures: 1, startedAt: now });
    return this.settings.maxFailures === 1;
  }

  forget(key: string): void {
    this.windows.delete(key);
  }

  private current(key: string, now: number): Window | undefined {
    const window = this.windows.get(key);
    if (window === undefined || now < window.startedAt + this.settings.windowMs) return window;
    this.windows.delete(key);
    return undefined;
  }

  private forgetExpired(now: number): void {
    for (const [key, window] of this.windows) {
      if (now < window.startedAt + this.settings.windowMs) return;
      this.windows.delete(key);
    }
  }
}

/**
 * Per-process and in memory, like the send rate limiter: one textrelay process owns its database,
 * and a restart forgiving every count is acceptable for a lock-out measured in minutes.
 */
export function createSignInThrottle(clock: Clock, settings: SignInThrottleSettings): SignInThrottle {
  if (settings.maxFailures <= 0) return { lockedForMs: () => 0, failed: () => [], succeeded: () => {} };
  const keyIds = new FailureCounts(settings);
  const addresses = new FailureCounts(settings);
  return {
    lockedForMs(keyId, address) {
      const now = clock.now();
      return Math.max(keyIds.lockedUntil(keyId, now), addresses.lockedUntil(address, now)) - now;
    },
    failed(keyId, address) {
      const now = clock.now();
      const locked: LockedBy[] = [];
      if (keyIds.add(keyId, now)) locked.push('key_id');
      if (addresses.add(address, now)) locked.push('address');
      return locked;
    },
    succeeded(keyId) {
      keyIds.forget(keyId);
    },
  };
}
