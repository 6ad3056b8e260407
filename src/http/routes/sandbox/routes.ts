import { createRoute } from '@hono/zod-openapi';
import type { ServiceDeps } from '../../../services/deps.ts';
import { SandboxInbound } from '../../../services/message-input.ts';
import { receiveSandboxInbound } from '../../../services/sandbox.ts';
import { API_SECURITY, apiErrors } from '../../openapi.ts';
import { apiRoute, createRouter } from '../../router.ts';
import { Message } from '../messages/schemas.ts';

/** The same validation as `textrelay inbound`, documented. */
const SandboxInboundBody = SandboxInbound.openapi('SandboxInboundRequest');

const simulateInboundRoute = createRoute({
  method: 'post',
  path: '/sandbox/inbound',
  tags: ['Sandbox'],
  operationId: 'simulateInbound',
  summary: 'Simulate an end user texting the account (sandbox transport only)',
  description: 'Stored and delivered exactly as a real inbound message: the receive webhooks get a message.received callback.',
  security: API_SECURITY,
  request: { body: { content: { 'application/json': { schema: SandboxInboundBody } }, required: true } },
  responses: {
    200: { description: 'Stored as RECEIVED', content: { 'application/json': { schema: Message } } },
    ...apiErrors('message', {
      400: 'Validation error, or number not a member of the group (4000); blacklisted number (4002)',
      404: 'Unknown group_id (4040)',
    }),
  },
});

/** Registered only when the transport is the sandbox: with a real upstream, end users text for themselves. */
export function sandboxRouter(deps: ServiceDeps) {
  const router = createRouter();
  router.openapi({ ...simulateInboundRoute, middleware: apiRoute(deps, 'message') }, async (c) =>
    c.json(await receiveSandboxInbound(deps, c.get('account'), c.req.valid('json')), 200),
  );
  return router;
}
