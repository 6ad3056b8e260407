import { z } from '@hono/zod-openapi';
import { DEFAULT_PAGE_SIZE, MAX_OFFSET, MAX_PAGE_SIZE } from '../../domain/limits.ts';
import { isHttpUrl } from '../../domain/media-url.ts';
import { checkPhoneNumber } from '../../domain/phone.ts';
import { mediaUrl, phoneNumber } from '../../services/message-input.ts';

/** The fields several resources share, documented: each resource's schemas.ts builds on them. */

const PHONE_DOCS = { type: 'string', example: '+14155550100', description: 'E.164 phone number' } as const;

/** Someone we send to: an emergency number or short code is refused with its own error (4002). */
export const RecipientNumber = phoneNumber({ blacklistIsItsOwnError: true }).openapi(PHONE_DOCS);
/** Someone who wrote or is stored: a blacklisted-looking number is just an invalid one. */
export const PlainNumber = phoneNumber({ blacklistIsItsOwnError: false }).openapi(PHONE_DOCS);
/** A v1 contact's number: the spec answers exactly "Invalid phone number". */
export const ContactNumber = phoneNumber({ blacklistIsItsOwnError: false, invalidMessage: 'Invalid phone number' }).openapi(PHONE_DOCS);

export const MediaUrl = mediaUrl.openapi({ description: 'Public http(s) link ending with a file extension; signed URLs are refused' });

export const CallbackUrl = z
  .string()
  .refine((value) => value === '' || isHttpUrl(value), { message: 'status_callback must be an absolute http or https URL' })
  .openapi({ description: 'Absolute http(s) URL that receives status changes' });

/** One of the account's numbers; '' means none (form clients send empty fields). */
export const LineNumber = z.string().transform((raw, ctx) => {
  if (raw === '') return undefined;
  const check = checkPhoneNumber(raw);
  if (check.ok) return check.e164;
  ctx.addIssue({ code: 'custom', message: 'from_number must be one of your lines, in E.164 like +14155550100' });
  return z.NEVER;
});

/** Over-large pages are clamped rather than refused: asking for "everything" should not be an error. */
export const Limit = z.coerce
  .number()
  .int()
  .min(1)
  .default(DEFAULT_PAGE_SIZE)
  .transform((limit) => Math.min(limit, MAX_PAGE_SIZE))
  .openapi({ type: 'integer', minimum: 1, default: DEFAULT_PAGE_SIZE, description: `Values above ${MAX_PAGE_SIZE} are clamped` });

export const Offset = z.coerce
  .number()
  .int()
  .min(0)
  .max(MAX_OFFSET, { message: `offset must be at most ${MAX_OFFSET}: narrow the listing with its filters (dates, number) instead` })
  .default(0)
  .openapi({ type: 'integer', minimum: 0, maximum: MAX_OFFSET, default: 0 });

const BOOLEAN_FLAGS = ['true', 'false', '1', '0'] as const;
export const BooleanFlag = z
  .enum(BOOLEAN_FLAGS)
  .transform((flag) => flag === 'true' || flag === '1')
  .openapi({ type: 'string', enum: [...BOOLEAN_FLAGS] });

/** An unencoded `?number=+1415...` arrives as " 1415..." (form decoding turns + into a space). */
export const QueryPhoneNumber = z
  .string()
  .transform((raw) => raw.replace(/^ (?=\d)/, '+'))
  .pipe(PlainNumber)
  .openapi({ type: 'string', example: '+14155550100' });
