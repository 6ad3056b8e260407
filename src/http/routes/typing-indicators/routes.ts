import { createRoute } from '@hono/zod-openapi';
import { sendTypingIndicator } from '../../../services/typing.ts';
import type { AppDeps } from '../../app-deps.ts';
import { API_SECURITY, apiErrors } from '../../openapi.ts';
import { answerOrRelay } from '../../provider-answers.ts';
import { apiRoute, createRouter } from '../../router.ts';
import { TypingIndicatorBody, TypingIndicatorResponse } from './schemas.ts';

const sendTypingIndicatorRoute = createRoute({
  method: 'post',
  path: '/api/send-typing-indicator',
  tags: ['Sending'],
  operationId: 'sendTypingIndicator',
  summary: 'Show or hide "typing…" to an end user',
  description: 'In the sandbox, the echo number (555-0106) types back: a typing_indicator webhook and a typing.changed event.',
  security: API_SECURITY,
  request: { body: { content: { 'application/json': { schema: TypingIndicatorBody } }, required: true } },
  responses: {
    200: { description: 'Sent', content: { 'application/json': { schema: TypingIndicatorResponse } } },
    ...apiErrors('message', {
      400: "Validation error, a from_number that is not the account's, an opted-out number, or a line whose carrier cannot show typing (an SMS line; BlueBubbles without its Private API) (4000)",
    }),
  },
});

export function typingIndicatorsRouter(deps: AppDeps) {
  const router = createRouter();
  router.openapi({ ...sendTypingIndicatorRoute, middleware: apiRoute(deps, 'message') }, async (c) => {
    const body = c.req.valid('json');
    const result = await sendTypingIndicator(deps, c.get('account'), {
      number: body.number,
      fromNumber: body.from_number,
      state: body.state,
      maxDurationMs: body.max_duration_ms,
    });
    return answerOrRelay(c, result);
  });
  return router;
}
