import { z } from '@hono/zod-openapi';
import { TYPING_STATES } from '../../../services/typing.ts';
import { PlainNumber } from '../fields.ts';

const LineNumber = PlainNumber.openapi({ type: 'string', example: '+14155550100', description: "One of the account's numbers" });

export const TypingIndicatorBody = z
  .object({
    number: PlainNumber.openapi({ description: 'The end user (E.164), not a group' }),
    from_number: LineNumber,
    state: z.enum(TYPING_STATES, { message: 'state must be start or stop' }).default('start'),
    max_duration_ms: z
      .number({ message: 'max_duration_ms must be a positive whole number of milliseconds' })
      .int({ message: 'max_duration_ms must be a positive whole number of milliseconds' })
      .positive({ message: 'max_duration_ms must be a positive whole number of milliseconds' })
      .optional()
      .openapi({ description: 'How long "typing…" shows at most; state start only' }),
  })
  .superRefine((body, ctx) => {
    if (body.state === 'stop' && body.max_duration_ms !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['max_duration_ms'], message: 'max_duration_ms applies only to state start' });
    }
  })
  .openapi('TypingIndicatorRequest');

export const TypingIndicatorResponse = z
  .object({ number: z.string(), status: z.literal('SENT'), error_message: z.null() })
  .openapi('TypingIndicatorResponse');
