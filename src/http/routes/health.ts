import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi';

const Healthy = z.object({ status: z.literal('OK') }).openapi('Healthy');
const NotReady = z.object({ status: z.literal('ERROR'), message: z.string() }).openapi('NotReady');
const OK: z.output<typeof Healthy> = { status: 'OK' };
const NOT_WRITABLE: z.output<typeof NotReady> = { status: 'ERROR', message: 'database not writable' };
const healthy = { description: 'Up', content: { 'application/json': { schema: Healthy } } };

/** Liveness answers while the process runs; readiness only while the database takes writes. */
export function healthRouter(isReady: () => boolean) {
  const router = new OpenAPIHono();

  router.openapi(
    createRoute({
      method: 'get',
      path: '/healthz',
      tags: ['Health'],
      operationId: 'getLiveness',
      summary: 'The process is running',
      responses: { 200: healthy },
    }),
    (c) => c.json(OK, 200),
  );

  router.openapi(
    createRoute({
      method: 'get',
      path: '/readyz',
      tags: ['Health'],
      operationId: 'getReadiness',
      summary: 'The database accepts writes',
      responses: {
        200: healthy,
        503: { description: 'The database is not writable', content: { 'application/json': { schema: NotReady } } },
      },
    }),
    (c) => (isReady() ? c.json(OK, 200) : c.json(NOT_WRITABLE, 503)),
  );

  return router;
}
