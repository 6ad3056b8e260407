/** Test data shared by the HTTP tests: phone numbers, the spec's field and style lists, dump helpers. */

/** The policy `serve` has with the sandbox: the test receivers and fake providers listen on 127.0.0.1. */
export const LOOPBACK_ALLOWED = { allowPrivate: true, allowLinkLocal: false } as const;

/** Valid US numbers for the people the tests write to. */
export const ALICE = '+14155550100';
export const BOB = '+14155550101';
export const CAROL = '+14155550102';
export const DAVE = '+14155550103';

/** A line no test account owns: outside the 555-0110..0199 block that sandbox accounts draw their lines from at random. */
export const UNOWNED_LINE = '+12025550200';

/** A message handle: a lower-case UUID. */
export const UUID_LOWER = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** `count` distinct valid numbers, none of them a sandbox service line. */
export function distinctNumbers(count: number): string[] {
  return Array.from({ length: count }, (_, i) => `+1212456${String(7000 + i)}`);
}

/** Every field of the spec's Message table. */
export const MESSAGE_FIELDS: readonly string[] = [
  'accountEmail',
  'content',
  'is_outbound',
  'status',
  'error_code',
  'error_message',
  'error_detail',
  'message_handle',
  'date_sent',
  'date_updated',
  'from_number',
  'number',
  'to_number',
  'was_downgraded',
  'plan',
  'media_url',
  'message_type',
  'group_id',
  'participants',
  'send_style',
  'opted_out',
];

/**
 * The spec's send_style values, written out here rather than imported from src so the tests
 * check the app (and the constant itself, in test/domain/limits.test.ts) against the spec.
 */
export const SEND_STYLES: readonly string[] = [
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
];

/** A readable dump of a value for assertion messages, cut at 4000 characters. */
export function show(value: unknown): string {
  return JSON.stringify(value, null, 1)?.slice(0, 4000) ?? String(value);
}
