import { createRoute } from '@hono/zod-openapi';
import { WEBHOOK_TYPES } from '../../../domain/webhook-types.ts';
import {
  addWebhookEntries,
  entryUrls,
  listWebhookMap,
  removeWebhookEntries,
  replaceWebhookEntries,
  type WebhookEntry,
} from '../../../services/account-webhook-lists.ts';
import type { AppDeps } from '../../app-deps.ts';
import { API_SECURITY, apiErrors } from '../../openapi.ts';
import { apiRoute, createRouter } from '../../router.ts';
import { CreateWebhooksBody, DeleteWebhooksBody, UpdateWebhooksBody, WebhookMapResponse, WebhooksDeletedResponse } from './v2-schemas.ts';

const mapResponse = {
  description: "The account's webhook lists",
  content: { 'application/json': { schema: WebhookMapResponse } },
};
const BAD_BODY = 'Invalid body, unknown type, a refused (private) URL, or too many entries (4000)';

const createWebhooksRoute = createRoute({
  method: 'post',
  path: '/api/account/webhooks',
  tags: ['Webhooks'],
  operationId: 'createAccountWebhooks',
  summary: "Append entries to one type's webhook list",
  security: API_SECURITY,
  request: { body: { content: { 'application/json': { schema: CreateWebhooksBody } }, required: true } },
  responses: { 200: mapResponse, ...apiErrors('message', { 400: BAD_BODY }) },
});

const updateWebhooksRoute = createRoute({
  method: 'put',
  path: '/api/account/webhooks',
  tags: ['Webhooks'],
  operationId: 'updateAccountWebhooks',
  summary: 'Replace the lists of the types given (absent types stay)',
  security: API_SECURITY,
  request: { body: { content: { 'application/json': { schema: UpdateWebhooksBody } }, required: true } },
  responses: { 200: mapResponse, ...apiErrors('message', { 400: BAD_BODY }) },
});

const listWebhooksRoute = createRoute({
  method: 'get',
  path: '/api/account/webhooks',
  tags: ['Webhooks'],
  operationId: 'listAccountWebhooks',
  summary: "The account's webhook lists and globalSecret",
  security: API_SECURITY,
  responses: { 200: mapResponse, ...apiErrors('message', {}, { body: false }) },
});

const deleteWebhooksRoute = createRoute({
  method: 'delete',
  path: '/api/account/webhooks',
  tags: ['Webhooks'],
  operationId: 'deleteAccountWebhooks',
  summary: "Remove URLs from one type's list (unknown ones are ignored)",
  security: API_SECURITY,
  request: { body: { content: { 'application/json': { schema: DeleteWebhooksBody } }, required: true } },
  responses: {
    200: { description: 'Removed', content: { 'application/json': { schema: WebhooksDeletedResponse } } },
    ...apiErrors('message', { 400: 'Invalid body or unknown type (4000)' }),
  },
});

export function accountWebhookListsRouter(deps: AppDeps) {
  const middleware = apiRoute(deps, 'message');
  const router = createRouter();
  const checkUrls = (entries: readonly WebhookEntry[], field: string) => {
    for (const { url, field: name } of entryUrls(entries, field)) deps.checkCallbackUrl(url, name);
  };

  router.openapi({ ...createWebhooksRoute, middleware }, async (c) => {
    const body = c.req.valid('json');
    checkUrls(body.webhooks, 'webhooks');
    const webhooks = await addWebhookEntries(deps, c.get('account'), body);
    return c.json({ status: 'OK' as const, message: `Webhooks added to ${body.type}`, webhooks }, 200);
  });

  router.openapi({ ...updateWebhooksRoute, middleware }, async (c) => {
    const map = c.req.valid('json').webhooks;
    for (const type of WEBHOOK_TYPES) checkUrls(map[type] ?? [], `webhooks.${type}`);
    const webhooks = await replaceWebhookEntries(deps, c.get('account'), map);
    return c.json({ status: 'OK' as const, message: 'Webhooks updated', webhooks }, 200);
  });

  router.openapi({ ...listWebhooksRoute, middleware }, async (c) =>
    c.json({ status: 'OK' as const, webhooks: await listWebhookMap(deps, c.get('account')) }, 200),
  );

  router.openapi({ ...deleteWebhooksRoute, middleware }, async (c) => {
    const { webhooks, type } = c.req.valid('json');
    await removeWebhookEntries(deps, c.get('account'), type, webhooks);
    return c.json({ status: 'OK' as const, message: `Webhooks removed from ${type}` }, 200);
  });

  return router;
}
