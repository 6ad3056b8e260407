/** The time source of every service: the system clock in production, a fake one where tests control time. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
