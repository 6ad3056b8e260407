/** The two inputs of a retry's timing, as text: the configured schedule and a receiver's Retry-After (contract section 7). */

/** `TEXTRELAY_WEBHOOK_RETRY_SCHEDULE` ("5,30,120", seconds) as milliseconds. */
export function parseRetrySchedule(seconds: string): number[] {
  const delays = seconds.split(',').map((part) => Number(part.trim()) * 1000);
  if (delays.length === 0 || delays.some((delay) => !Number.isFinite(delay) || delay < 0)) {
    throw new Error(`Invalid retry schedule: ${seconds}`);
  }
  return delays;
}

/** A Retry-After header (delta-seconds or an HTTP date) as milliseconds from `now`, or undefined when absent or unreadable. */
export function parseRetryAfter(header: string | undefined, now: number): number | undefined {
  if (header === undefined) return undefined;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(at - now, 0);
}
