import { type OpenAPIHono, z } from '@hono/zod-openapi';
import type { AppEnv } from '../../env.ts';
import { ReceiveWebhookPayload, StatusCallbackPayload } from './schemas.ts';

/** The callbacks textrelay POSTs to its clients, as OpenAPI 3.1 `webhooks`. */

const CallbackHeaders = z.object({
  'webhook-id': z.string().openapi({ description: 'One id per event, the same on every retry: deduplicate on it' }),
  'webhook-timestamp': z.string().openapi({ description: 'Unix seconds of this attempt' }),
  'webhook-signature': z.string().openapi({
    description:
      "Standard Webhooks signature: v1,<base64 HMAC-SHA256 of id.timestamp.body> with the account's whsec_ secret; for 24 h after a rotation also one made with the previous secret, space-separated",
  }),
  'svc-signing-secret': z.string().openapi({ description: "The account's webhook secret itself, for receivers that compare it" }),
  'user-agent': z.string().openapi({ example: 'textrelay/0.1.0' }),
});

const ANSWERS = {
  '2XX': { description: 'Received: the delivery is done' },
  '410': { description: 'Gone: no further attempt, the delivery is given up' },
  default: {
    description:
      'Anything else, a timeout (10 s) or a refused connection: tried again with exponential backoff (5 s up to 24 h by default), honouring Retry-After; redirects are not followed',
  },
};

export function registerWebhookPayloads(registry: OpenAPIHono<AppEnv>['openAPIRegistry']): void {
  registry.registerWebhook({
    method: 'post',
    path: 'message.status',
    operationId: 'messageStatusCallback',
    tags: ['Webhooks'],
    summary: "A message's status changed (POSTed to the send's status_callback)",
    description:
      'One callback per applied change, QUEUED included, in status order per message: the next waits until the previous succeeded or was given up. A status that skipped a step arrives after the implied one (SENT before DELIVERED).',
    request: {
      headers: CallbackHeaders,
      body: { content: { 'application/json': { schema: StatusCallbackPayload } }, required: true },
    },
    responses: ANSWERS,
  });
  registry.registerWebhook({
    method: 'post',
    path: 'message.received',
    operationId: 'messageReceivedWebhook',
    tags: ['Webhooks'],
    summary: "An end user texted one of the account's numbers (POSTed to every receive webhook URL)",
    description:
      'For a group message, number and from_number are the member who wrote, to_number is the account\'s line, and group_id, participants and message_type="group" say which group.',
    request: {
      headers: CallbackHeaders,
      body: { content: { 'application/json': { schema: ReceiveWebhookPayload } }, required: true },
    },
    responses: ANSWERS,
  });
}
