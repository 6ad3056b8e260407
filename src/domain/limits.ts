/** Limits of the public API (api-spec "Limits"), shared by validation and documentation. */

/** Content must be shorter than this many characters; longer texts are split by the client. */
export const CONTENT_LENGTH_LIMIT = 18_996;

/** End users per group; the account's own line does not count. */
export const MAX_GROUP_MEMBERS = 25;

export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 1000;
/** Rows a listing may skip: the database walks every skipped index entry, so a deeper offset costs one request the time of the account's whole history. */
export const MAX_OFFSET = 100_000;

/** A request body larger than this is refused with 413 before it is parsed. */
export const MAX_BODY_BYTES = 1024 * 1024;

/** How long an Idempotency-Key is remembered. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;

export const SEND_STYLES = [
  'celebration',
  'shooting_star',
  'fireworks',
  'lasers',
  'love',
  'confetti',
  'balloons',
  'spotlight',
  'echo',
  'invisible',
  'gentle',
  'loud',
  'slam',
] as const;
export type SendStyle = (typeof SEND_STYLES)[number];

export const PLANS = ['blue', 'sapphire'] as const;
export type Plan = (typeof PLANS)[number];

/** Group messaging is a higher-tier feature. */
export const GROUP_PLAN: Plan = 'sapphire';

export function planAllows(plan: Plan, required: Plan): boolean {
  return PLANS.indexOf(plan) >= PLANS.indexOf(required);
}
