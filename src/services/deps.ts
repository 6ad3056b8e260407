import type { Logger } from 'pino';
import type { Store } from '../db/store.ts';
import type { RateLimiter } from './rate-limiter.ts';

export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** What every use case may reach. Built once by the entry point (or a test) and passed down. */
export type ServiceDeps = {
  store: Store;
  clock: Clock;
  log: Logger;
  sendRateLimiter: RateLimiter;
  /** Time zone of contacts' displayDate. */
  displayTimeZone: string;
  /** Service numbers given to an account created without an explicit count. */
  defaultNumbersPerAccount: number;
};
