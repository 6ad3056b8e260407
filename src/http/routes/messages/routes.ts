import { createRoute, type z } from '@hono/zod-openapi';
import type { ServiceDeps } from '../../../services/deps.ts';
import { getMessageStatus, listMessages } from '../../../services/messages.ts';
import { jsonTextAnswer } from '../../json-text-answer.ts';
import { API_SECURITY, apiErrors } from '../../openapi.ts';
import { apiRoute, createRouter } from '../../router.ts';
import { ListMessagesQuery, MessageList, MessageWithHistory, StatusQuery } from './schemas.ts';

const listMessagesRoute = createRoute({
  method: 'get',
  path: '/accounts/messages',
  tags: ['Messages'],
  operationId: 'listMessages',
  summary: "List the account's messages, newest first",
  security: API_SECURITY,
  request: { query: ListMessagesQuery },
  responses: {
    200: { description: 'A page of messages', content: { 'application/json': { schema: MessageList } } },
    ...apiErrors('message', { 400: 'Invalid filter, date or paging parameter (4000)' }, { body: false }),
  },
});

const getMessageStatusRoute = createRoute({
  method: 'get',
  path: '/api/status',
  tags: ['Messages'],
  operationId: 'getMessageStatus',
  summary: 'Look up a message by its handle',
  description: 'With history=true, every status event received for it, applied or not, and why not.',
  security: API_SECURITY,
  request: { query: StatusQuery },
  responses: {
    200: { description: 'The message', content: { 'application/json': { schema: MessageWithHistory } } },
    ...apiErrors('message', { 400: 'Missing handle (4000)', 404: 'No message with this handle in the account (4040)' }, { body: false }),
  },
});

export function messagesRouter(deps: ServiceDeps) {
  const middleware = apiRoute(deps, 'message');
  const router = createRouter();

  router.openapi({ ...listMessagesRoute, middleware }, async (c) => {
    const query = c.req.valid('query');
    const page = await listMessages(deps, c.get('account'), {
      filter: {
        contactId: query.cid,
        number: query.number,
        groupId: query.group_id,
        status: query.status,
        isOutbound: query.is_outbound,
        sentSince: query.from_date,
      },
      limit: query.limit,
      offset: query.offset,
    });
    return jsonTextAnswer<z.output<typeof MessageList>>(c, page);
  });

  router.openapi({ ...getMessageStatusRoute, middleware }, async (c) => {
    const { handle, history } = c.req.valid('query');
    return c.json(await getMessageStatus(deps, c.get('account'), handle, history ?? false), 200);
  });

  return router;
}
