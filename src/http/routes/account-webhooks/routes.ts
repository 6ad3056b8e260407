import { createRoute, type z } from '@hono/zod-openapi';
import {
  addReceiveWebhooks,
  getWebhookSettings,
  removeReceiveWebhooks,
  rotateWebhookSecret,
  type WebhookSettings,
} from '../../../services/account-webhooks.ts';
import { listDeliveries, replayDelivery } from '../../../services/callback-deliveries.ts';
import type { AppDeps } from '../../app-deps.ts';
import { API_SECURITY, apiErrors } from '../../openapi.ts';
import { apiRoute, createRouter } from '../../router.ts';
import {
  DeliveriesQuery,
  DeliveryIdParam,
  DeliveryPage,
  ReplayedDelivery,
  SecretResponse,
  WebhookSettingsResponse,
  WebhooksBody,
} from './schemas.ts';

const settingsResponse = {
  description: 'The receive webhooks and the signing secret',
  content: { 'application/json': { schema: WebhookSettingsResponse } },
};

const addReceiveWebhooksRoute = createRoute({
  method: 'post',
  path: '/accounts/webhooks',
  tags: ['Webhooks'],
  operationId: 'addReceiveWebhooks',
  summary: 'Add receive webhook URLs',
  security: API_SECURITY,
  request: { body: { content: { 'application/json': { schema: WebhooksBody } }, required: true } },
  responses: {
    200: settingsResponse,
    ...apiErrors('message', { 400: 'Invalid body or URL, a refused (private) address, or too many webhooks (4000)' }),
  },
});

const getWebhookSettingsRoute = createRoute({
  method: 'get',
  path: '/accounts/webhooks',
  tags: ['Webhooks'],
  operationId: 'getWebhookSettings',
  summary: 'The receive webhook URLs and the signing secret',
  security: API_SECURITY,
  responses: { 200: settingsResponse, ...apiErrors('message', {}, { body: false }) },
});

const removeReceiveWebhooksRoute = createRoute({
  method: 'delete',
  path: '/accounts/webhooks',
  tags: ['Webhooks'],
  operationId: 'removeReceiveWebhooks',
  summary: 'Remove receive webhook URLs (unknown ones are ignored)',
  security: API_SECURITY,
  request: { body: { content: { 'application/json': { schema: WebhooksBody } }, required: true } },
  responses: { 200: settingsResponse, ...apiErrors('message', { 400: 'Invalid body (4000)' }) },
});

const rotateWebhookSecretRoute = createRoute({
  method: 'post',
  path: '/accounts/webhooks/secret',
  tags: ['Webhooks'],
  operationId: 'rotateWebhookSecret',
  summary: 'Rotate the signing secret (the old one keeps signing beside it for 24 h)',
  security: API_SECURITY,
  responses: {
    200: { description: 'The new secret', content: { 'application/json': { schema: SecretResponse } } },
    ...apiErrors('message', {}),
  },
});

const listWebhookDeliveriesRoute = createRoute({
  method: 'get',
  path: '/accounts/webhooks/deliveries',
  tags: ['Webhooks'],
  operationId: 'listWebhookDeliveries',
  summary: "The account's webhook deliveries, newest first, each with its attempts",
  security: API_SECURITY,
  request: { query: DeliveriesQuery },
  responses: {
    200: { description: 'A page of deliveries', content: { 'application/json': { schema: DeliveryPage } } },
    ...apiErrors('message', { 400: 'Invalid state or paging parameter (4000)' }, { body: false }),
  },
});

const replayWebhookDeliveryRoute = createRoute({
  method: 'post',
  path: '/accounts/webhooks/deliveries/{id}/replay',
  tags: ['Webhooks'],
  operationId: 'replayWebhookDelivery',
  summary: 'Send a delivery again, due now, with the same webhook-id',
  security: API_SECURITY,
  request: { params: DeliveryIdParam },
  responses: {
    200: { description: 'The delivery, queued again', content: { 'application/json': { schema: ReplayedDelivery } } },
    ...apiErrors('message', {
      400: 'Delivery id longer than 200 characters (4000)',
      404: 'No such delivery for this account (4040)',
      409: 'Being delivered right now (4090)',
    }),
  },
});

function settingsBody(settings: WebhookSettings): z.output<typeof WebhookSettingsResponse> {
  return { status: 'OK', webhooks: { receive: settings.receive }, secret: settings.secret };
}

export function accountWebhooksRouter(deps: AppDeps) {
  const middleware = apiRoute(deps, 'message');
  const router = createRouter();

  router.openapi({ ...addReceiveWebhooksRoute, middleware }, async (c) => {
    const { webhooks } = c.req.valid('json');
    for (const [index, url] of webhooks.entries()) deps.checkCallbackUrl(url, `webhooks[${index}]`);
    return c.json(settingsBody(await addReceiveWebhooks(deps, c.get('account'), webhooks)), 200);
  });

  router.openapi({ ...getWebhookSettingsRoute, middleware }, async (c) =>
    c.json(settingsBody(await getWebhookSettings(deps, c.get('account'))), 200),
  );

  router.openapi({ ...removeReceiveWebhooksRoute, middleware }, async (c) =>
    c.json(settingsBody(await removeReceiveWebhooks(deps, c.get('account'), c.req.valid('json').webhooks)), 200),
  );

  router.openapi({ ...rotateWebhookSecretRoute, middleware }, async (c) =>
    c.json({ status: 'OK', secret: await rotateWebhookSecret(deps, c.get('account')) }, 200),
  );

  router.openapi({ ...listWebhookDeliveriesRoute, middleware }, async (c) =>
    c.json({ status: 'OK', deliveries: await listDeliveries(deps, c.get('account'), c.req.valid('query')) }, 200),
  );

  router.openapi({ ...replayWebhookDeliveryRoute, middleware }, async (c) =>
    c.json({ status: 'OK', delivery: await replayDelivery(deps, c.req.valid('param').id, c.get('account')) }, 200),
  );

  return router;
}
