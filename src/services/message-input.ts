import { z } from 'zod';
import { ErrorCode } from '../domain/error-codes.ts';
import { CONTENT_LENGTH_LIMIT } from '../domain/limits.ts';
import { checkMediaUrl, type MediaUrlProblem } from '../domain/media-url.ts';
import { checkPhoneNumber } from '../domain/phone.ts';
import type { SandboxInboundInput } from './sandbox.ts';

/**
 * The rules a message's fields are held to, whoever sends it: the API (which adds their
 * documentation) and the CLI. Custom issues carry a complete sentence as their message and, where
 * it is not 4000, the API error code in params.
 */

export function phoneNumber(options: { blacklistIsItsOwnError: boolean }) {
  return z.string().transform((raw, ctx) => {
    const check = checkPhoneNumber(raw);
    if (check.ok) return check.e164;
    const blacklisted = check.reason === 'blacklisted' && options.blacklistIsItsOwnError;
    ctx.addIssue({
      code: 'custom',
      message: blacklisted
        ? `${raw} is a blacklisted number (emergency numbers and short codes cannot be messaged)`
        : 'Invalid phone number',
      params: { errorCode: blacklisted ? ErrorCode.blacklisted : ErrorCode.validation },
    });
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
  number: phoneNumber({ blacklistIsItsOwnError: true }),
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
