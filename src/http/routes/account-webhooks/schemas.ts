import { z } from '@hono/zod-openapi';
import { DELIVERY_STATES, DELIVERY_VIEW_STATES, WEBHOOK_EVENT_TYPES } from '../../../domain/delivery-views.ts';
import { isHttpUrl } from '../../../domain/media-url.ts';
import { MAX_WEBHOOK_URLS_PER_REQUEST } from '../../../services/account-webhooks.ts';
import { Offset } from '../fields.ts';
import { Message } from '../messages/schemas.ts';

/**
 * The callbacks textrelay POSTs to its clients, cut from the Message object as the payloads
 * themselves are (domain/webhook-payloads.ts); test/http/openapi.test.ts checks real payloads
 * against them, field for field.
 */
export const StatusCallbackPayload = Message.pick({
  accountEmail: true,
  content: true,
  is_outbound: true,
  media_url: true,
  status: true,
  error_code: true,
  error_message: true,
  message_handle: true,
  date_sent: true,
  date_updated: true,
  from_number: true,
  number: true,
  to_number: true,
  plan: true,
  message_type: true,
  group_id: true,
})
  .extend({ was_downgraded: z.boolean().openapi({ description: 'false while not known yet (QUEUED)' }) })
  .openapi('StatusCallbackPayload');

export const ReceiveWebhookPayload = StatusCallbackPayload.extend({
  participants: Message.shape.participants.openapi({
    description: "Every member's number, the account's line included; [] for one-to-one",
  }),
  service: z.enum(['iMessage', 'SMS']),
  group_display_name: z.string().openapi({ description: '"" unless the group has a name' }),
  send_style: Message.shape.send_style,
  opted_out: z.boolean().openapi({ description: 'True on the message that opted its sender out (STOP and its synonyms)' }),
}).openapi('ReceiveWebhookPayload');

// Receive webhook URLs, the signing secret and the delivery log (contract sections 4 and 7).

const MAX_URL_LENGTH = 2048;

const WebhookUrl = z
  .string()
  .max(MAX_URL_LENGTH, { message: `webhook URLs must be at most ${MAX_URL_LENGTH} characters` })
  .refine(isHttpUrl, { message: 'webhooks must be absolute http or https URLs' })
  .openapi({ example: 'https://example.com/textrelay/receive' });

export const WebhooksBody = z
  .object({
    webhooks: z
      .array(WebhookUrl)
      .min(1, { message: 'webhooks must list at least one URL' })
      .max(MAX_WEBHOOK_URLS_PER_REQUEST, { message: `webhooks lists at most ${MAX_WEBHOOK_URLS_PER_REQUEST} URLs` })
      .optional()
      .openapi({ description: 'The URLs; give this or url' }),
    url: WebhookUrl.optional().openapi({ description: "One URL, as the public service's documentation writes it; give this or webhooks" }),
    type: z.literal('receive', { message: 'type must be "receive"' }),
  })
  .superRefine((body, ctx) => {
    if ((body.webhooks === undefined) === (body.url === undefined)) {
      ctx.addIssue({ code: 'custom', path: ['webhooks'], message: 'give either webhooks (a list of URLs) or url (one URL), not both' });
    }
  })
  .transform(({ webhooks, url, type }) => ({ webhooks: webhooks ?? (url === undefined ? [] : [url]), type }))
  .openapi('WebhooksRequest');

export const WebhookSettingsResponse = z
  .object({
    status: z.literal('OK'),
    webhooks: z.object({ receive: z.array(z.string()) }),
    secret: z.string().openapi({ description: 'The whsec_ secret that signs callbacks (created on first use)' }),
  })
  .openapi('WebhookSettings');

export const SecretResponse = z.object({ status: z.literal('OK'), secret: z.string() }).openapi('WebhookSecret');

const Attempt = z.object({
  attempted_at: z.string(),
  duration_ms: z.number().int(),
  status_code: z.number().int().nullable(),
  response_excerpt: z.string().openapi({ description: 'First 2 KiB of the answer' }),
  error: z.string().nullable(),
});

export const Delivery = z
  .object({
    id: z.string().openapi({ description: 'The webhook-id header of every attempt' }),
    event_type: z.enum(WEBHOOK_EVENT_TYPES),
    url: z.string(),
    message_handle: z.string(),
    state: z.enum(DELIVERY_VIEW_STATES).openapi({
      description: 'held: waiting behind an earlier unfinished delivery of the same message and URL (held_behind)',
    }),
    held_behind: z.string().nullable().openapi({ description: 'The id of the delivery a held one waits for; null unless held' }),
    attempt_count: z.number().int(),
    next_attempt_at: z.string().nullable(),
    last_status_code: z.number().int().nullable(),
    last_error: z.string().nullable(),
    created_at: z.string(),
    completed_at: z.string().nullable(),
    payload: z.union([StatusCallbackPayload, ReceiveWebhookPayload]).openapi({ description: 'The body that was sent, as event_type says' }),
    attempts: z.array(Attempt),
  })
  .openapi('WebhookDelivery');

export const DeliveriesQuery = z.object({
  state: z.enum(DELIVERY_STATES).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50).openapi({ type: 'integer', minimum: 1, maximum: 200, default: 50 }),
  offset: Offset,
});

export const DeliveryIdParam = z.object({
  id: z.string().min(1).max(200).openapi({ description: 'The delivery id (its webhook-id header)' }),
});

export const DeliveryPage = z.object({ status: z.literal('OK'), deliveries: z.array(Delivery) });

export const ReplayedDelivery = z.object({ status: z.literal('OK'), delivery: Delivery });
