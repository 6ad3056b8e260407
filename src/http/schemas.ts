import { z } from '@hono/zod-openapi';
import { parseListingDate } from '../domain/dates.ts';
import { ErrorCode } from '../domain/error-codes.ts';
import { checkMediaUrl, isHttpUrl, type MediaUrlProblem } from '../domain/media-url.ts';
import { CONTENT_LENGTH_LIMIT, DEFAULT_PAGE_SIZE, MAX_GROUP_MEMBERS, MAX_PAGE_SIZE, SEND_STYLES } from '../domain/limits.ts';
import { checkPhoneNumber } from '../domain/phone.ts';
import { MESSAGE_STATUSES } from '../domain/status.ts';
import { CONTACT_ORDER_FIELDS } from '../domain/contact-order.ts';
import { MODIFY_TYPES } from '../services/groups.ts';

/**
 * Request schemas: the single source of validation and of the OpenAPI document. Custom issues carry
 * a complete sentence as their message and, where it is not 4000, the API error code in params.
 */

export function phoneNumber(options: { blacklistIsItsOwnError: boolean }) {
  return z
    .string()
    .transform((raw, ctx) => {
      const check = checkPhoneNumber(raw);
      if (check.ok) return check.e164;
      const blacklisted = check.reason === 'blacklisted' && options.blacklistIsItsOwnError;
      ctx.addIssue({
        code: 'custom',
        message: blacklisted ? `${raw} is a blacklisted number (emergency numbers and short codes cannot be messaged)` : 'Invalid phone number',
        params: { errorCode: blacklisted ? ErrorCode.blacklisted : ErrorCode.validation },
      });
      return z.NEVER;
    })
    .openapi({ type: 'string', example: '+14155550100', description: 'E.164 phone number' });
}

const RecipientNumber = phoneNumber({ blacklistIsItsOwnError: true });
const ContactNumber = phoneNumber({ blacklistIsItsOwnError: false });

const mediaUrlProblems: Record<MediaUrlProblem, string> = {
  not_http: 'media_url must be an http or https URL',
  no_extension: 'media_url must end with a file extension (such as .jpg)',
  signed: 'media_url must not be a signed URL (signature or expiry parameters are not supported)',
};

/** Form clients send empty fields for "none": '' means absent for optional text. */
const MediaUrl = z
  .string()
  .superRefine((value, ctx) => {
    const problem = value === '' ? null : checkMediaUrl(value);
    if (problem) ctx.addIssue({ code: 'custom', message: mediaUrlProblems[problem] });
  })
  .openapi({ description: 'Public http(s) link ending with a file extension; signed URLs are refused' });

const CallbackUrl = z
  .string()
  .refine((value) => value === '' || isHttpUrl(value), { message: 'status_callback must be an absolute http or https URL' })
  .openapi({ description: 'Absolute http(s) URL that receives status changes' });

const LineNumber = z.string().transform((raw, ctx) => {
  if (raw === '') return undefined;
  const check = checkPhoneNumber(raw);
  if (check.ok) return check.e164;
  ctx.addIssue({ code: 'custom', message: 'from_number is not a valid phone number' });
  return z.NEVER;
});

const MAX_NUMBERS_LISTED = 100;

const messageFields = {
  content: z
    .string()
    .max(CONTENT_LENGTH_LIMIT - 1, { message: `content must be shorter than ${CONTENT_LENGTH_LIMIT} characters` })
    .optional(),
  media_url: MediaUrl.optional(),
  send_style: z.enum([...SEND_STYLES, '']).optional(),
  status_callback: CallbackUrl.optional(),
  statusCallback: CallbackUrl.optional().openapi({ description: 'Older spelling of status_callback' }),
  from_number: LineNumber.optional().openapi({ type: 'string', description: "One of the account's numbers" }),
};

type MessageFields = {
  content?: string | undefined;
  media_url?: string | undefined;
  send_style?: (typeof SEND_STYLES)[number] | '' | undefined;
  status_callback?: string | undefined;
  statusCallback?: string | undefined;
  from_number?: string | undefined;
};

function requireContentOrMedia(body: MessageFields, ctx: z.RefinementCtx): void {
  if (!body.content && !body.media_url) {
    ctx.addIssue({ code: 'custom', message: 'Either content or media_url is required' });
  }
}

function toMessageBody(body: MessageFields) {
  return {
    content: body.content || undefined,
    mediaUrl: body.media_url || undefined,
    sendStyle: body.send_style || undefined,
    statusCallback: body.status_callback || body.statusCallback || undefined,
    fromNumber: body.from_number,
  };
}

export const SendMessageBody = z
  .object({ number: RecipientNumber, ...messageFields })
  .superRefine(requireContentOrMedia)
  .transform((body) => ({ number: body.number, ...toMessageBody(body) }))
  .openapi('SendMessageRequest');

export const SendGroupMessageBody = z
  .object({
    // The 25-person limit counts distinct end users, known only after duplicates and the account's
    // own lines are removed (services/groups.ts); this bound only caps the parsing work of a request.
    numbers: z
      .array(RecipientNumber)
      .max(MAX_NUMBERS_LISTED, { message: `numbers lists at most ${MAX_NUMBERS_LISTED} entries` })
      .optional()
      .openapi({ description: `E.164 numbers of the group's people, at most ${MAX_GROUP_MEMBERS} distinct` }),
    group_id: z.string().min(1).optional(),
    ...messageFields,
  })
  .superRefine((body, ctx) => {
    requireContentOrMedia(body, ctx);
    if (body.numbers === undefined && body.group_id === undefined) {
      ctx.addIssue({ code: 'custom', message: 'Either numbers or group_id is required' });
    }
  })
  .transform((body) => ({ numbers: body.numbers, groupId: body.group_id, ...toMessageBody(body) }))
  .openapi('SendGroupMessageRequest');

export const ModifyGroupBody = z
  .object({
    group_id: z.string().min(1),
    modify_type: z.enum(MODIFY_TYPES),
    number: RecipientNumber.optional(),
  })
  .openapi('ModifyGroupRequest');

export const CreateContactBody = z
  .object({
    firstName: z.string().max(200),
    lastName: z.string().max(200),
    number: ContactNumber,
    companyName: z.string().max(200).optional(),
  })
  .openapi('CreateContactRequest');

/** Over-large pages are clamped rather than refused: asking for "everything" should not be an error. */
const Limit = z.coerce
  .number()
  .int()
  .min(1)
  .default(DEFAULT_PAGE_SIZE)
  .transform((limit) => Math.min(limit, MAX_PAGE_SIZE))
  .openapi({ type: 'integer', minimum: 1, default: DEFAULT_PAGE_SIZE, description: `Values above ${MAX_PAGE_SIZE} are clamped` });
const Offset = z.coerce.number().int().min(0).default(0).openapi({ type: 'integer', minimum: 0, default: 0 });

export const ListContactsQuery = z.object({
  order_by: z.enum(CONTACT_ORDER_FIELDS).default('last_date'),
  order_direction: z.enum(['asc', 'desc']).default('desc'),
  limit: Limit,
  offset: Offset,
});

const BOOLEAN_FLAGS = ['true', 'false', '1', '0'] as const;
const BooleanFlag = z
  .enum(BOOLEAN_FLAGS)
  .transform((flag) => flag === 'true' || flag === '1')
  .openapi({ type: 'string', enum: [...BOOLEAN_FLAGS] });

/** An unencoded `?number=+1415...` arrives as " 1415..." (form decoding turns + into a space). */
const QueryPhoneNumber = z
  .string()
  .transform((raw) => raw.replace(/^ (?=\d)/, '+'))
  .pipe(ContactNumber)
  .openapi({ type: 'string', example: '+14155550100' });

export const ListMessagesQuery = z.object({
  cid: z.string().min(1).optional().openapi({ description: 'Only the conversation with this contact (its cid)' }),
  number: QueryPhoneNumber.optional().openapi({ description: 'Only the conversation with this number (encode + as %2B)' }),
  group_id: z.string().min(1).optional().openapi({ description: 'Only the messages of this group' }),
  status: z.enum(MESSAGE_STATUSES).optional(),
  is_outbound: BooleanFlag.optional().openapi({ description: 'true: only sent messages; false: only received ones' }),
  from_date: z
    .string()
    .transform((raw, ctx) => {
      const epochMs = parseListingDate(raw);
      if (epochMs !== null) return epochMs;
      ctx.addIssue({ code: 'custom', message: 'from_date must be a UTC date and time as YYYY-MM-DD HH:MM:SS' });
      return z.NEVER;
    })
    .optional()
    .openapi({ type: 'string', example: '2026-11-23 09:30:00', description: 'Only messages sent at or after this UTC time' }),
  limit: Limit,
  offset: Offset,
});

export const StatusQuery = z.object({
  handle: z.string().min(1).openapi({ description: 'The message_handle a send answered' }),
  history: BooleanFlag.optional().openapi({ description: 'Add every status event received, applied or not, and why not' }),
});

export const ContactIdParam = z.object({ contact_id: z.string().min(1) });
