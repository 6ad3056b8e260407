import type { Clock } from '../../src/services/clock.ts';

/** A clock that moves only when the test says so. */
export class FakeClock implements Clock {
  constructor(private current = Date.UTC(2026, 10, 23, 9, 30, 0)) {}

  now(): number {
    return this.current;
  }

  advance(ms: number): void {
    this.current += ms;
  }

  set(epochMs: number): void {
    this.current = epochMs;
  }
}
