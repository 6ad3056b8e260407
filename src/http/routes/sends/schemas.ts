import { z } from '@hono/zod-openapi';
import { MAX_GROUP_MEMBERS, SEND_STYLES } from '../../../domain/limits.ts';
import { MODIFY_TYPES } from '../../../services/groups.ts';
import { AppCard, messageContent, ReplyTo, requireContentOrMedia } from '../../../services/message-input.ts';
import { headerParam } from '../../header-param.ts';
import { CallbackUrl, LineNumber, MediaUrl, RecipientNumber } from '../fields.ts';

const MAX_NUMBERS_LISTED = 100;

const messageFields = {
  content: messageContent.optional(),
  media_url: MediaUrl.optional(),
  send_style: z.enum([...SEND_STYLES, '']).optional(),
  status_callback: CallbackUrl.optional(),
  statusCallback: CallbackUrl.optional().openapi({ description: 'Older spelling of status_callback' }),
  from_number: LineNumber.optional().openapi({ type: 'string', description: "One of the account's numbers" }),
  reply_to: ReplyTo.optional(),
  seat_id: z.string().optional().openapi({ description: 'Stored and echoed; textrelay gives seats no meaning' }),
  app_card: AppCard.optional(),
};

type MessageFields = z.output<z.ZodObject<typeof messageFields>>;

function toMessageBody(body: MessageFields) {
  return {
    content: body.content || undefined,
    mediaUrl: body.media_url || undefined,
    sendStyle: body.send_style || undefined,
    statusCallback: body.status_callback || body.statusCallback || undefined,
    fromNumber: body.from_number,
    replyTo: body.reply_to,
    seatId: body.seat_id,
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

export const IdempotencyKeyHeader = headerParam(
  'idempotency-key',
  z.string().min(1).max(255).optional(),
  'Same key and body within 24 h returns the first response; no second send',
);

export const ModifyGroupBody = z
  .object({
    group_id: z.string().min(1),
    modify_type: z.enum(MODIFY_TYPES, { message: 'modify_type must be add_recipient or remove_recipient' }).openapi({
      description: 'add_recipient or remove_recipient; rename and leave answer 501 (rename with POST /api/v2/groups/{group_id}/name)',
    }),
    number: RecipientNumber.openapi({ description: 'The end user to add or remove (E.164)' }),
    from_number: LineNumber.optional().openapi({ type: 'string', description: "One of the account's numbers; default: the group's line" }),
  })
  .openapi('ModifyGroupRequest');

export const ModifyGroupResponse = z
  .object({
    status: z.literal('OK'),
    group_id: z.string(),
    modify_type: z.string(),
    number: z.string(),
    error: z.null(),
    error_message: z.null(),
  })
  .openapi('ModifyGroupResponse');
