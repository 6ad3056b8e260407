import { createRoute, type z } from '@hono/zod-openapi';
import type { ServiceDeps } from '../../../services/deps.ts';
import { listMessagesV2, retrieveMessageV2 } from '../../../services/messages-v2.ts';
import { jsonTextAnswer } from '../../json-text-answer.ts';
import { API_SECURITY, apiErrors } from '../../openapi.ts';
import { apiRoute, createRouter } from '../../router.ts';
import { ListMessagesV2Query, MessageIdParam, MessageListV2, MessageRetrieveV2 } from './schemas.ts';

const listRoute = createRoute({
  method: 'get',
  path: '/api/v2/messages',
  tags: ['Messages'],
  operationId: 'listMessagesFiltered',
  summary: "List the account's messages with filters and pagination (messages.list)",
  security: API_SECURITY,
  request: { query: ListMessagesV2Query },
  responses: {
    200: { description: 'A page of messages', content: { 'application/json': { schema: MessageListV2 } } },
    ...apiErrors('message', { 400: 'Invalid filter, date, order or paging parameter (4000)' }, { body: false }),
  },
});

const retrieveRoute = createRoute({
  method: 'get',
  path: '/api/v2/messages/{id}',
  tags: ['Messages'],
  operationId: 'retrieveMessage',
  summary: 'One message by its handle (messages.retrieve)',
  security: API_SECURITY,
  request: { params: MessageIdParam },
  responses: {
    200: { description: 'The message', content: { 'application/json': { schema: MessageRetrieveV2 } } },
    ...apiErrors('message', { 404: 'No message with this handle in the account (4040)' }, { body: false }),
  },
});

export function messagesV2Router(deps: ServiceDeps) {
  const middleware = apiRoute(deps, 'message');
  const router = createRouter();
  router.openapi({ ...listRoute, middleware }, async (c) =>
    jsonTextAnswer<z.output<typeof MessageListV2>>(c, await listMessagesV2(deps, c.get('account'), c.req.valid('query'))),
  );
  router.openapi({ ...retrieveRoute, middleware }, async (c) =>
    jsonTextAnswer<z.output<typeof MessageRetrieveV2>>(c, await retrieveMessageV2(deps, c.get('account'), c.req.valid('param').id)),
  );
  return router;
}
