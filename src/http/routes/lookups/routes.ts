import { createRoute } from '@hono/zod-openapi';
import type { ServiceDeps } from '../../../services/deps.ts';
import { lineStates, lookupNumber } from '../../../services/lookups.ts';
import { API_SECURITY, apiErrors } from '../../openapi.ts';
import { answerOrRelay } from '../../provider-answers.ts';
import { apiRoute, createRouter } from '../../router.ts';
import { LineStates, LookupAnswer, LookupQuery } from './schemas.ts';

const lookupRoute = createRoute({
  method: 'get',
  path: '/api/evaluate-service',
  tags: ['Lines and lookups'],
  operationId: 'lookupNumber',
  summary: 'Which service reaches a number: iMessage or SMS (lookups.lookupNumber)',
  security: API_SECURITY,
  request: { query: LookupQuery },
  responses: {
    200: { description: 'The service', content: { 'application/json': { schema: LookupAnswer } } },
    ...apiErrors(
      'message',
      {
        400: 'Missing or invalid number (4000)',
        429: "Too many lookups answered by the account's line's carrier this minute (4001, TEXTRELAY_LOOKUP_RATE_LIMIT_PER_MINUTE)",
      },
      { body: false },
    ),
  },
});

const lineStateRoute = createRoute({
  method: 'get',
  path: '/api/v2/lines/state',
  tags: ['Lines and lookups'],
  operationId: 'getLineStates',
  summary: "The state of each of the account's lines (lines.getState)",
  security: API_SECURITY,
  responses: {
    200: { description: 'The lines', content: { 'application/json': { schema: LineStates } } },
    ...apiErrors('message', {}, { body: false }),
  },
});

export function lookupsRouter(deps: ServiceDeps) {
  const middleware = apiRoute(deps, 'message');
  const router = createRouter();
  router.openapi({ ...lookupRoute, middleware }, async (c) =>
    answerOrRelay(c, await lookupNumber(deps, c.get('account'), c.req.valid('query').number)),
  );
  router.openapi({ ...lineStateRoute, middleware }, async (c) => c.json(await lineStates(deps, c.get('account')), 200));
  return router;
}
