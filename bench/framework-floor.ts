/**
 * The stack's own floor: the framework textrelay is built on (hono on @hono/node-server, a route
 * declared with @hono/zod-openapi that validates the status callback's body with textrelay's own
 * schema) and nothing else: no credentials, middleware, database or callback. The gap between
 * the bare handler and this one is the framework's cost per request; the gap between this one
 * and status ingest is textrelay's.
 */
import { serve } from '@hono/node-server';
import { createRoute, OpenAPIHono } from '@hono/zod-openapi';
import { StatusCallbackBody } from '../src/http/routes/ingest/schemas.ts';

const app = new OpenAPIHono();
app.openapi(
  createRoute({
    method: 'post',
    path: '/webhooks/status',
    request: { body: { content: { 'application/json': { schema: StatusCallbackBody } }, required: true } },
    responses: { 200: { description: 'Validated' } },
  }),
  (c) => c.json({ ok: true, status: c.req.valid('json').status }, 200),
);
serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => {
  process.stdout.write(`floor listening on http://127.0.0.1:${info.port}\n`);
});
process.once('SIGTERM', () => process.exit(0));
