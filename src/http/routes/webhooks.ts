import { createRoute, z } from '@hono/zod-openapi';
import type { AppDeps } from '../app-deps.ts';
import { isHttpUrl } from '../../domain/media-url.ts';
import { DELIVERY_STATES, WEBHOOK_EVENT_TYPES } from '../../db/schema.ts';
import { listDeliveries, replayDelivery } from '../../services/webhook-deliveries.ts';
import {
  addReceiveWebhooks,
  getWebhookSettings,
  MAX_RECEIVE_WEBHOOKS,
  removeReceiveWebhooks,
  rotateWebhookSecret,
  type WebhookSettings,
} from '../../services/webhook-settings.ts';
import { API_SECURITY, apiErrors } from '../openapi.ts';
import { ReceiveWebhookPayload, StatusCallbackPayload } from '../openapi-webhooks.ts';
import { apiRoute, createRouter } from '../router.ts';

const MAX_URL_LENGTH = 2048;

const WebhookUrl = z
  .string()
  .max(MAX_URL_LENGTH, { message: `webhook URLs must be at most ${MAX_URL_LENGTH} characters` })
  .refine(isHttpUrl, { message: 'webhooks must be absolute http or https URLs' })
  .openapi({ example: 'https://example.com/textrelay/receive' });

const WebhooksBody = z
  .object({
    webhooks: z
      .array(WebhookUrl)
      .min(1, { message: 'webhooks must list at least one URL' })
      .max(MAX_RECEIVE_WEBHOOKS, { message: `webhooks lists at most ${MAX_RECEIVE_WEBHOOKS} URLs` }),
    type: z.literal('receive', { message: 'type must be "receive"' }),
  })
  .openapi('WebhooksRequest');

const WebhookSettingsResponse = z
  .object({
    status: z.literal('OK'),
    webhooks: z.object({ receive: z.array(z.string()) }),
    secret: z.string().openapi({ description: 'The whsec_ secret that signs callbacks (created on first use)' }),
  })
  .openapi('WebhookSettings');

const SecretResponse = z.object({ status: z.literal('OK'), secret: z.string() }).openapi('WebhookSecret');

const Attempt = z.object({
  attempted_at: z.string(),
  duration_ms: z.number().int(),
  status_code: z.number().int().nullable(),
  response_excerpt: z.string().openapi({ description: 'First 2 KiB of the answer' }),
  error: z.string().nullable(),
});

const Delivery = z
  .object({
    id: z.string().openapi({ description: 'The webhook-id header of every attempt' }),
    event_type: z.enum(WEBHOOK_EVENT_TYPES),
    url: z.string(),
    message_handle: z.string(),
    state: z.enum(DELIVERY_STATES),
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

const DeliveriesQuery = z.object({
  state: z.enum(DELIVERY_STATES).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50).openapi({ type: 'integer', minimum: 1, maximum: 200, default: 50 }),
  offset: z.coerce.number().int().min(0).default(0).openapi({ type: 'integer', minimum: 0, default: 0 }),
});

const DeliveryIdParam = z.object({ id: z.string().min(1).max(200).openapi({ description: 'The delivery id (its webhook-id header)' }) });

function settingsBody(settings: WebhookSettings) {
  return { status: 'OK' as const, webhooks: { receive: settings.receive }, secret: settings.secret };
}

/** Receive webhook URLs, the signing secret and the delivery log (contract sections 4 and 7). */
export function webhooksRouter(deps: AppDeps) {
  const middleware = apiRoute(deps, 'message');
  const router = createRouter();
  const settingsResponse = { description: 'The receive webhooks and the signing secret', content: { 'application/json': { schema: WebhookSettingsResponse } } };

  router.openapi(
    createRoute({
      method: 'post',
      path: '/accounts/webhooks',
      tags: ['Webhooks'],
      operationId: 'addReceiveWebhooks',
      summary: 'Add receive webhook URLs',
      security: API_SECURITY,
      middleware,
      request: { body: { content: { 'application/json': { schema: WebhooksBody } }, required: true } },
      responses: {
        200: settingsResponse,
        ...apiErrors('message', { 400: 'Invalid body or URL, a refused (private) address, or too many webhooks (4000)' }),
      },
    }),
    async (c) => {
      const { webhooks } = c.req.valid('json');
      for (const [index, url] of webhooks.entries()) deps.checkCallbackUrl(url, `webhooks[${index}]`);
      return c.json(settingsBody(addReceiveWebhooks(deps, c.get('account'), webhooks)), 200);
    },
  );

  router.openapi(
    createRoute({
      method: 'get',
      path: '/accounts/webhooks',
      tags: ['Webhooks'],
      operationId: 'getWebhookSettings',
      summary: 'The receive webhook URLs and the signing secret',
      security: API_SECURITY,
      middleware,
      responses: { 200: settingsResponse, ...apiErrors('message', {}, { body: false }) },
    }),
    (c) => c.json(settingsBody(getWebhookSettings(deps, c.get('account'))), 200),
  );

  router.openapi(
    createRoute({
      method: 'delete',
      path: '/accounts/webhooks',
      tags: ['Webhooks'],
      operationId: 'removeReceiveWebhooks',
      summary: 'Remove receive webhook URLs (unknown ones are ignored)',
      security: API_SECURITY,
      middleware,
      request: { body: { content: { 'application/json': { schema: WebhooksBody } }, required: true } },
      responses: { 200: settingsResponse, ...apiErrors('message', { 400: 'Invalid body (4000)' }) },
    }),
    (c) => c.json(settingsBody(removeReceiveWebhooks(deps, c.get('account'), c.req.valid('json').webhooks)), 200),
  );

  router.openapi(
    createRoute({
      method: 'post',
      path: '/accounts/webhooks/secret',
      tags: ['Webhooks'],
      operationId: 'rotateWebhookSecret',
      summary: 'Rotate the signing secret (the old one keeps signing beside it for 24 h)',
      security: API_SECURITY,
      middleware,
      responses: {
        200: { description: 'The new secret', content: { 'application/json': { schema: SecretResponse } } },
        ...apiErrors('message', {}),
      },
    }),
    (c) => c.json({ status: 'OK' as const, secret: rotateWebhookSecret(deps, c.get('account')) }, 200),
  );

  router.openapi(
    createRoute({
      method: 'get',
      path: '/accounts/webhooks/deliveries',
      tags: ['Webhooks'],
      operationId: 'listWebhookDeliveries',
      summary: "The account's webhook deliveries, newest first, each with its attempts",
      security: API_SECURITY,
      middleware,
      request: { query: DeliveriesQuery },
      responses: {
        200: {
          description: 'A page of deliveries',
          content: { 'application/json': { schema: z.object({ status: z.literal('OK'), deliveries: z.array(Delivery) }) } },
        },
        ...apiErrors('message', { 400: 'Invalid state or paging parameter (4000)' }, { body: false }),
      },
    }),
    (c) => {
      const deliveries = listDeliveries(deps, c.get('account'), c.req.valid('query'));
      return c.json({ status: 'OK' as const, deliveries: deliveries as z.infer<typeof Delivery>[] }, 200);
    },
  );

  router.openapi(
    createRoute({
      method: 'post',
      path: '/accounts/webhooks/deliveries/{id}/replay',
      tags: ['Webhooks'],
      operationId: 'replayWebhookDelivery',
      summary: 'Send a delivery again, due now, with the same webhook-id',
      security: API_SECURITY,
      middleware,
      request: { params: DeliveryIdParam },
      responses: {
        200: {
          description: 'The delivery, queued again',
          content: { 'application/json': { schema: z.object({ status: z.literal('OK'), delivery: Delivery }) } },
        },
        ...apiErrors('message', {
          400: 'Delivery id longer than 200 characters (4000)',
          404: 'No such delivery for this account (4040)',
          409: 'Being delivered right now (4090)',
        }),
      },
    }),
    (c) => {
      const delivery = replayDelivery(deps, c.req.valid('param').id, c.get('account'));
      return c.json({ status: 'OK' as const, delivery: delivery as z.infer<typeof Delivery> }, 200);
    },
  );

  return router;
}
