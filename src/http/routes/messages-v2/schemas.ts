import { z } from '@hono/zod-openapi';
import { MAX_PAGE_SIZE } from '../../../domain/limits.ts';
import { MESSAGE_STATUSES } from '../../../domain/status.ts';
import { BooleanFlag, Offset, QueryPhoneNumber } from '../fields.ts';

/** messages.list and messages.retrieve of the SDK (v2): the Message row and the listing's query. */

const DEFAULT_V2_PAGE_SIZE = 100;

/** The SDK's status names; those textrelay never produces are accepted and match nothing. */
const LISTABLE_STATUSES = [...MESSAGE_STATUSES, 'REGISTERED', 'PENDING', 'DECLINED', 'ACCEPTED', 'SUCCESS'] as const;

const ORDER_BY = {
  createdAt: 'sent',
  sentAt: 'sent',
  updatedAt: 'updated',
  created_at: 'sent',
  sent_at: 'sent',
  updated_at: 'updated',
} as const;
type OrderByName = keyof typeof ORDER_BY;

function isoDate(field: string) {
  return z
    .string()
    .transform((raw, ctx) => {
      const epochMs = /^\d{4}-\d{2}-\d{2}/.test(raw) ? Date.parse(raw) : Number.NaN;
      if (!Number.isNaN(epochMs)) return epochMs;
      ctx.addIssue({ code: 'custom', message: `${field} must be an ISO 8601 date, like 2026-11-25T09:30:00Z` });
      return z.NEVER;
    })
    .optional()
    .openapi({ type: 'string', format: 'date-time', example: '2026-11-25T09:30:00Z' });
}

export const ListMessagesV2Query = z
  .object({
    limit: z.coerce
      .number()
      .int()
      .min(1)
      .max(MAX_PAGE_SIZE)
      .default(DEFAULT_V2_PAGE_SIZE)
      .openapi({ type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_V2_PAGE_SIZE }),
    offset: Offset,
    number: QueryPhoneNumber.optional().openapi({ description: 'The end user, either direction (encode + as %2B)' }),
    from_number: QueryPhoneNumber.optional().openapi({ description: 'The sender: a line (outbound) or an end user (inbound)' }),
    to_number: QueryPhoneNumber.optional().openapi({ description: 'The recipient: an end user (outbound) or a line (inbound)' }),
    sendblue_number: QueryPhoneNumber.optional().openapi({ description: "The account's line involved" }),
    worker_id: z.string().min(1).optional().openapi({ description: "A line's worker_id (lines.getState)" }),
    group_id: z.string().min(1).optional(),
    is_outbound: BooleanFlag.optional(),
    message_type: z.enum(['message', 'group']).optional(),
    service: z.enum(['iMessage', 'SMS', 'RCS']).optional(),
    status: z.enum(LISTABLE_STATUSES).optional().openapi({ description: 'Names textrelay never produces match nothing' }),
    account_email: z.string().optional().openapi({ description: "Must be the account's email, else nothing matches" }),
    created_at_gte: isoDate('created_at_gte'),
    created_at_lte: isoDate('created_at_lte'),
    updated_at_gte: isoDate('updated_at_gte'),
    updated_at_lte: isoDate('updated_at_lte'),
    sent_at_gte: isoDate('sent_at_gte'),
    sent_at_lte: isoDate('sent_at_lte'),
    order_by: z
      .enum(Object.keys(ORDER_BY) as [OrderByName, ...OrderByName[]])
      .default('createdAt')
      .openapi({ description: 'createdAt and sentAt are the same time in textrelay' }),
    order_direction: z.enum(['asc', 'desc']).default('desc'),
  })
  .transform(({ order_by, order_direction, ...query }) => ({ ...query, order: { by: ORDER_BY[order_by], direction: order_direction } }));

const ReplyTo = z.object({ message_handle: z.string(), part_index: z.number().int().optional() }).openapi('ReplyTo');

export const MessageRowSchema = z
  .object({
    accountEmail: z.string(),
    content: z.string(),
    date_sent: z.string().openapi({ description: 'ISO 8601, UTC' }),
    date_updated: z.string().openapi({ description: 'ISO 8601, UTC' }),
    error_code: z.number().int().nullable(),
    error_detail: z.string().nullable(),
    error_message: z.string().nullable(),
    error_reason: z.string().nullable(),
    from_number: z.string(),
    group_display_name: z.string().nullable(),
    group_id: z.string().nullable(),
    is_outbound: z.boolean(),
    media_url: z.string().nullable(),
    message_handle: z.string(),
    message_type: z.enum(['message', 'group']),
    number: z.string().openapi({ description: 'The end user; "" for an outbound group send (see participants)' }),
    opted_out: z.boolean(),
    participants: z.array(z.string()),
    plan: z.string(),
    reply_to: ReplyTo.nullable(),
    seat_id: z.string().nullable(),
    send_style: z.string().nullable(),
    sendblue_number: z.string(),
    sender_email: z.null(),
    service: z.enum(['iMessage', 'SMS']),
    status: z.enum(MESSAGE_STATUSES),
    thread_originator: z.object({ message_handle: z.string() }).nullable(),
    to_number: z.string(),
    was_downgraded: z.boolean(),
  })
  .openapi('MessageRow');

export const MessageListV2 = z
  .object({
    status: z.literal('OK'),
    data: z.array(MessageRowSchema),
    pagination: z.object({ total: z.number().int(), limit: z.number().int(), offset: z.number().int(), hasMore: z.boolean() }),
  })
  .openapi('MessageListV2');

export const MessageRetrieveV2 = z.object({ status: z.literal('OK'), data: MessageRowSchema }).openapi('MessageRetrieveV2');

export const MessageIdParam = z.object({
  id: z
    .string()
    .min(1)
    .openapi({ param: { name: 'id', in: 'path' }, description: 'The message_handle' }),
});
