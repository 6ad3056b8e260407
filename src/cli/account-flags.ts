import { z } from 'zod';
import { PLANS } from '../domain/limits.ts';
import { isHttpUrl } from '../domain/media-url.ts';
import { checkPhoneNumber, hasE164Shape, notValidNumberProblem } from '../domain/phone.ts';

// The flags of `textrelay accounts ...`, checked before any database is opened.

/** Phone numbers, comma-separated and/or as separate words: each in E.164, answered canonical and once each. */
function parseLineNumbers(flag: string, words: readonly string[], ctx: z.RefinementCtx): string[] {
  const numbers = words
    .flatMap((word) => word.split(','))
    .map((word) => word.trim())
    .filter((word) => word !== '');
  if (numbers.length === 0) ctx.addIssue({ code: 'custom', message: `${flag}: give at least one phone number` });
  const lines = new Set<string>();
  for (const number of numbers) {
    const checked = checkPhoneNumber(number);
    if (checked.ok) lines.add(checked.e164);
    else if (hasE164Shape(number)) ctx.addIssue({ code: 'custom', message: `${flag}: ${number} ${notValidNumberProblem(number)}` });
    else ctx.addIssue({ code: 'custom', message: `${flag}: ${number} is not a phone number in E.164 form (+14155550100)` });
  }
  return [...lines];
}

const MAX_GENERATED_NUMBERS = 100;

/** `--numbers 3` generates three sandbox numbers; `--numbers +1…,+1…` gives the account these lines. */
const NumbersFlag = z.string().transform((value, ctx): number | string[] => {
  if (!/^\d+$/.test(value)) return parseLineNumbers('--numbers', [value], ctx);
  const count = Number(value);
  if (count < 1 || count > MAX_GENERATED_NUMBERS) {
    ctx.addIssue({
      code: 'custom',
      message: `--numbers must be a count from 1 to ${MAX_GENERATED_NUMBERS}, or E.164 numbers separated by commas`,
    });
  }
  return count;
});

export const CreateAccountFlags = z
  .object({
    email: z.email({ message: '--email must be an email address' }),
    plan: z.enum(PLANS, { message: `--plan must be one of ${PLANS.join(', ')}` }).default('blue'),
    numbers: NumbersFlag.optional(),
    receiveWebhook: z.string().refine(isHttpUrl, { message: '--receive-webhook must be an http(s) URL' }).optional(),
    upstreamKeyId: z.string().min(1, '--upstream-key-id must not be empty').optional(),
    upstreamSecret: z.string().min(1, '--upstream-secret-file must not be empty').optional(),
  })
  .refine((flags) => (flags.upstreamKeyId === undefined) === (flags.upstreamSecret === undefined), {
    message: '--upstream-key-id and --upstream-secret-file go together: give both or neither',
  });

export const UpstreamFlags = z.object({
  email: z.email({ message: '--email must be an email address' }),
  keyId: z.string({ message: '--key-id is required' }).min(1, '--key-id must not be empty'),
  secret: z.string({ message: '--secret-file is required' }).min(1, '--secret-file must not be empty'),
});

export const LinesFlags = z.object({
  email: z.email({ message: '--email must be an email address' }),
  numbers: z.array(z.string()).transform((words, ctx) => parseLineNumbers('NUMBERS', words, ctx)),
});
