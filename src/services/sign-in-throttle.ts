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
  lockedForMs(keyId: string, address: string): Promise<number>;
  /** Counts a failed sign-in against both; answers what this very failure locked (usually nothing). */
  failed(keyId: string, address: string): Promise<LockedBy[]>;
  /** A key id that signed in starts afresh; its address keeps its count, or an attacker's own account could wipe it. */
  succeeded(keyId: string): Promise<void>;
}

/** Failure windows every instance on one database shares (`db/postgres/shared-limits.ts`), keyed as `keyOf` says. */
export interface SharedFailureWindows {
  /** Counts a failure in the key's window (restarted if it ended); answers the window's failures. */
  add(key: string, now: number, windowMs: number): Promise<number>;
  read(keys: readonly string[]): Promise<{ key: string; failures: number; startedAt: number }[]>;
  forget(key: string): Promise<void>;
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

const throttleOff: SignInThrottle = { lockedForMs: async () => 0, failed: async () => [], succeeded: async () => {} };

/**
 * Per-process and in memory, like the send rate limiter: one textrelay process owns its SQLite
 * file, and a restart forgiving every count is acceptable for a lock-out measured in minutes.
 */
export function createSignInThrottle(clock: Clock, settings: SignInThrottleSettings): SignInThrottle {
  if (settings.maxFailures <= 0) return throttleOff;
  const keyIds = new FailureCounts(settings);
  const addresses = new FailureCounts(settings);
  return {
    async lockedForMs(keyId, address) {
      const now = clock.now();
      return Math.max(keyIds.lockedUntil(keyId, now), addresses.lockedUntil(address, now)) - now;
    },
    async failed(keyId, address) {
      const now = clock.now();
      const locked: LockedBy[] = [];
      if (keyIds.add(keyId, now)) locked.push('key_id');
      if (addresses.add(address, now)) locked.push('address');
      return locked;
    },
    async succeeded(keyId) {
      keyIds.forget(keyId);
    },
  };
}

/** The windows' keys in the shared table: key ids and addresses apart, as in memory. */
const keyIdKey = (keyId: string) => `key_id:${keyId}`;
const addressKey = (address: string) => `address:${address}`;

/**
 * The same throttle in the database that several instances share, so a guesser spreading tries over
 * the instances behind a load balancer meets one limit. Not bounded by maxTracked: ended windows
 * are removed as new ones start.
 */
export function createSharedSignInThrottle(clock: Clock, settings: SignInThrottleSettings, windows: SharedFailureWindows): SignInThrottle {
  if (settings.maxFailures <= 0) return throttleOff;
  const { maxFailures, windowMs } = settings;
  return {
    async lockedForMs(keyId, address) {
      const now = clock.now();
      const locks = (await windows.read([keyIdKey(keyId), addressKey(address)]))
        .filter((window) => window.failures >= maxFailures)
        .map((window) => window.startedAt + windowMs - now);
      return Math.max(0, ...locks);
    },
    async failed(keyId, address) {
      const now = clock.now();
      const [byKeyId, byAddress] = await Promise.all([
        windows.add(keyIdKey(keyId), now, windowMs),
        windows.add(addressKey(address), now, windowMs),
      ]);
      const locked: LockedBy[] = [];
      if (byKeyId === maxFailures) locked.push('key_id');
      if (byAddress === maxFailures) locked.push('address');
      return locked;
    },
    async succeeded(keyId) {
      await windows.forget(keyIdKey(keyId));
    },
  };
}
