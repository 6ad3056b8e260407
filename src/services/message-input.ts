import { z } from 'zod';
import { ErrorCode } from '../domain/error-codes.ts';
import { CONTENT_LENGTH_LIMIT } from '../domain/limits.ts';
import { checkMediaUrl, type MediaUrlProblem } from '../domain/media-url.ts';
import { checkPhoneNumber, hasE164Shape, notValidNumberProblem } from '../domain/phone.ts';
import type { SandboxInboundInput } from './sandbox.ts';

/**
 * The rules a message's fields are held to, whoever sends it: the API (which adds their
 * documentation) and the CLI. Custom issues carry a complete sentence as their message and, where
 * it is not 4000, the API error code in params.
 */

/** What a send's number is held to, in words a caller can act on. */
export const E164_EXPECTED = 'must be E.164, like +14155550100';
/** The same rule for who wrote an inbound message. */
export const SENDER_EXPECTED = "must be the sender's E.164 number, like +14155550100";

/**
 * A phone number field. Its problem is said after the field's name (validation.ts puts it first),
 * as `expected` unless the field keeps a wording of its own (`invalidMessage`, a whole sentence).
 */
export function phoneNumber(options: { blacklistIsItsOwnError: boolean; expected?: string; invalidMessage?: string }) {
  return z.string().transform((raw, ctx) => {
    const check = checkPhoneNumber(raw);
    if (check.ok) return check.e164;
    const blacklisted = check.reason === 'blacklisted' && options.blacklistIsItsOwnError;
    const errorCode = blacklisted ? ErrorCode.blacklisted : ErrorCode.validation;
    if (!blacklisted && options.invalidMessage !== undefined) {
      ctx.addIssue({ code: 'custom', message: options.invalidMessage, params: { errorCode } });
    } else {
      const problem = blacklisted
        ? `must not be an emergency number or short code (${raw} cannot be messaged)`
        : hasE164Shape(raw)
          ? notValidNumberProblem(raw)
          : (options.expected ?? E164_EXPECTED);
      ctx.addIssue({ code: 'custom', message: problem, params: { errorCode, afterFieldName: true } });
    }
    return z.NEVER;
  });
}

export const messageContent = z
  .string()
  .max(CONTENT_LENGTH_LIMIT - 1, { message: `content must be shorter than ${CONTENT_LENGTH_LIMIT} characters` });

const mediaUrlProblems: Record<MediaUrlProblem, string> = {
  not_http: 'media_url must be an http or https URL',
  no_extension: 'media_url must end with a file extension (such as .jpg)',
  signed: 'media_url must not be a signed URL (signature or expiry parameters are not supported)',
};

/** The message a send answers, and which of its parts. */
export const ReplyTo = z.object({
  message_handle: z.string().min(1, { message: 'reply_to.message_handle must be the message_handle of one of your messages' }),
  part_index: z.number().int().min(0, { message: 'reply_to.part_index must be a whole number, 0 or more' }).optional(),
});

/** Interactive app cards are outside textrelay: any app_card refuses the send with 501. */
export const AppCard = z.unknown().superRefine((_value, ctx) => {
  ctx.addIssue({
    code: 'custom',
    message: 'app_card (messages.send with an app card, messages.updateAppCard) is not supported by textrelay',
    params: { errorCode: ErrorCode.notImplemented },
  });
});

/** Form clients send empty fields for "none": '' means absent for optional text. */
export const mediaUrl = z.string().superRefine((value, ctx) => {
  const problem = value === '' ? null : checkMediaUrl(value);
  if (problem) ctx.addIssue({ code: 'custom', message: mediaUrlProblems[problem] });
});

export function requireContentOrMedia(body: { content?: string | undefined; media_url?: string | undefined }, ctx: z.RefinementCtx): void {
  if (!body.content && !body.media_url) ctx.addIssue({ code: 'custom', message: 'Either content or media_url is required' });
}

/** An end user texting the account on the sandbox network, held to exactly what a send accepts. */
const sandboxInboundFields = {
  number: phoneNumber({ blacklistIsItsOwnError: true, expected: SENDER_EXPECTED }),
  content: messageContent.optional(),
  media_url: mediaUrl.optional(),
  group_id: z.string().min(1).optional(),
};

export const SandboxInbound = z
  .object(sandboxInboundFields)
  .superRefine(requireContentOrMedia)
  .transform(
    (body): SandboxInboundInput => ({
      number: body.number,
      content: body.content || undefined,
      mediaUrl: body.media_url || undefined,
      groupId: body.group_id,
    }),
  );
