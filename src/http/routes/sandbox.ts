import { createRoute, z } from '@hono/zod-openapi';
import type { ServiceDeps } from '../../services/deps.ts';
import { receiveSandboxInbound } from '../../services/sandbox.ts';
import { API_SECURITY, apiErrors } from '../openapi.ts';
import { MessageObject } from '../responses.ts';
import { apiRoute, createRouter } from '../router.ts';
import { SendMessageBody } from '../schemas.ts';

// The send's own field rules, so an end user's message is held to exactly what a send accepts.
const sendFields = SendMessageBody.in.shape;

/** An end user texting the account; shared by `POST /sandbox/inbound` and `textrelay inbound`. */
export const SandboxInboundBody = z
  .object({
    number: sendFields.number,
    content: sendFields.content,
    media_url: sendFields.media_url,
    group_id: z.string().min(1).optional().openapi({ description: "One of the account's groups; number must be a member" }),
  })
  .superRefine((body, ctx) => {
    if (!body.content && !body.media_url) ctx.addIssue({ code: 'custom', message: 'Either content or media_url is required' });
  })
  .transform((body) => ({
    number: body.number,
    content: body.content || undefined,
    mediaUrl: body.media_url || undefined,
    groupId: body.group_id,
  }))
  .openapi('SandboxInboundRequest');

/** Registered only when the transport is the sandbox: with a real upstream, end users text for themselves. */
export function sandboxRouter(deps: ServiceDeps) {
  const router = createRouter();

  router.openapi(
    createRoute({
      method: 'post',
      path: '/sandbox/inbound',
      tags: ['Sandbox'],
      operationId: 'simulateInbound',
      summary: 'Simulate an end user texting the account (sandbox transport only)',
      description: 'Stored and delivered exactly as a real inbound message: the receive webhooks get a message.received callback.',
      security: API_SECURITY,
      middleware: apiRoute(deps, 'message'),
      request: { body: { content: { 'application/json': { schema: SandboxInboundBody } }, required: true } },
      responses: {
        200: { description: 'Stored as RECEIVED', content: { 'application/json': { schema: MessageObject } } },
        ...apiErrors('message', {
          400: 'Validation error, or number not a member of the group (4000); blacklisted number (4002)',
          404: 'Unknown group_id (4040)',
        }),
      },
    }),
    (c) => c.json(receiveSandboxInbound(deps, c.get('account'), c.req.valid('json')), 200),
  );

  return router;
}
