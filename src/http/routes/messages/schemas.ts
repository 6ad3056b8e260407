import { z } from '@hono/zod-openapi';
import { parseListingDate } from '../../../domain/dates.ts';
import { MESSAGE_STATUSES } from '../../../domain/status.ts';
import { BooleanFlag, Limit, Offset, QueryPhoneNumber } from '../fields.ts';

/** The Message object (answered by sends, the status look-up and the sandbox) and the message listing. */

const Numbers = z
  .union([z.string(), z.array(z.string())])
  .openapi({ description: "The end user's E.164 number; for an outbound group send, the recipients as an array" });

export const Message = z
  .object({
    accountEmail: z.string(),
    content: z.string(),
    is_outbound: z.boolean().openapi({ description: 'true for a message the account sent, false for one it received' }),
    status: z.enum(MESSAGE_STATUSES),
    error_code: z
      .number()
      .int()
      .nullable()
      .openapi({ description: 'null unless status is ERROR: 10001 failed to send, 10002 status unresolved' }),
    error_message: z.string().nullable(),
    error_detail: z.string().nullable(),
    message_handle: z.string().uuid(),
    date_sent: z.string().openapi({ description: 'ISO 8601, UTC' }),
    date_updated: z.string().openapi({ description: 'ISO 8601, UTC: the latest status change' }),
    from_number: z.string().openapi({ description: "The sender: the account's line for outbound messages" }),
    number: Numbers,
    to_number: Numbers,
    numbers: z.array(z.string()).optional().openapi({ description: 'Group sends only: the recipients (the announced rename of number)' }),
    to_numbers: z
      .array(z.string())
      .optional()
      .openapi({ description: 'Group sends only: the recipients (the announced rename of to_number)' }),
    was_downgraded: z.boolean().nullable().openapi({ description: 'true when sent as SMS; null until the transport knows' }),
    plan: z.string(),
    media_url: z.string(),
    message_type: z.enum(['message', 'group']),
    group_id: z.string().openapi({ description: '"" for one-to-one messages' }),
    participants: z.array(z.string()),
    send_style: z.string().openapi({ description: '"" when none' }),
    opted_out: z.boolean(),
  })
  .openapi('Message');

export const StatusEvent = z.object({
  status: z.enum(MESSAGE_STATUSES),
  applied: z.boolean(),
  implied: z.boolean(),
  reason: z.string().nullable().openapi({ description: 'Why the event was not applied' }),
  error_code: z.number().int().nullable(),
  error_message: z.string().nullable(),
  source: z.string(),
  received_at: z.string(),
  repeats: z.number().int().openapi({ description: 'How many times the same report, without an event id, came again after this one' }),
});

export const MessageWithHistory = Message.extend({ history: z.array(StatusEvent).optional() }).openapi('MessageWithHistory');

const SecondsNanos = z.object({ _seconds: z.number().int(), _nanoseconds: z.number().int() });

export const MessageListRecord = z
  .object({
    uuid: z.string(),
    message_handle: z.string(),
    date: z.string(),
    content: z.string(),
    media_url: z.string(),
    number: Numbers,
    to_number: Numbers,
    from_number: z.string(),
    is_outbound: z.boolean(),
    accountEmail: z.string(),
    status: z.enum(MESSAGE_STATUSES),
    error_code: z.number().int().nullable(),
    error_message: z.string().nullable(),
    error_detail: z.string().nullable(),
    was_downgraded: z.boolean().nullable(),
    allowSMS: z.boolean(),
    allow_sms: z.boolean(),
    sendStyle: z.string(),
    send_style: z.string(),
    type: z.string(),
    message_type: z.string(),
    callbackURL: z.string(),
    callback_url: z.string(),
    row_id: z.string().nullable(),
    date_sent: SecondsNanos,
    date_updated: SecondsNanos,
    phoneID: z.string(),
    group_id: z.string(),
  })
  .openapi('MessageListRecord');

export const MessageList = z.object({ messages: z.array(MessageListRecord) }).openapi('MessageList');

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
