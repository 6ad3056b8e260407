import { parseListingDate } from '../domain/dates.ts';
import { UsageError } from './usage-error.ts';

const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?$/;
const AGO = /^(\d+)(s|m|h|d)$/;
const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/**
 * A time given to `--since` flags, in epoch ms: ISO 8601 (a date alone is midnight UTC; a time
 * needs Z or an offset, so it never depends on the machine's zone), the API's "YYYY-MM-DD HH:MM:SS"
 * UTC, or a span back from `now` (30s, 15m, 2h, 1d).
 */
export function parseTimeFlag(flag: string, raw: string, now: number): number {
  const ago = AGO.exec(raw);
  if (ago) return now - Number(ago[1]) * UNIT_MS[ago[2] as keyof typeof UNIT_MS];
  const listing = parseListingDate(raw);
  if (listing !== null) return listing;
  const at = ISO_DATE_TIME.test(raw) ? Date.parse(raw) : Number.NaN;
  if (Number.isNaN(at)) {
    throw new UsageError(
      `${flag} must be a time such as 2026-11-23T09:00:00Z or "2026-11-23 09:00:00" (UTC), or a span back from now such as 30m, 2h or 1d; not ${raw}`,
    );
  }
  return at;
}
