import { OpenAPIHono } from '@hono/zod-openapi';
import { ErrorCode } from './domain/error-codes.ts';
import type { AppDeps } from './http/app-deps.ts';
import type { AppEnv } from './http/env.ts';
import { createErrorHandler, respondWithError } from './http/errors.ts';
import { inboxRouter } from './http/inbox/router.tsx';
import { metricsRouter } from './http/metrics.ts';
import { serveOpenApiDocument } from './http/openapi.ts';
import { requestContext } from './http/request-context.ts';
import { accountWebhooksRouter } from './http/routes/account-webhooks/routes.ts';
import { accountWebhookListsRouter } from './http/routes/account-webhooks/v2-routes.ts';
import { carrierWebhooksRouter } from './http/routes/carrier-webhooks/routes.ts';
import { contactsRouter } from './http/routes/contacts/routes.ts';
import { contactsV2Router } from './http/routes/contacts-v2/routes.ts';
import { docsRouter } from './http/routes/docs.ts';
import { eventsRouter } from './http/routes/events/routes.ts';
import { groupsRouter } from './http/routes/groups/routes.ts';
import { healthRouter } from './http/routes/health.ts';
import { ingestRouter } from './http/routes/ingest/routes.ts';
import { lookupsRouter } from './http/routes/lookups/routes.ts';
import { mediaRouter } from './http/routes/media/routes.ts';
import { messagesRouter } from './http/routes/messages/routes.ts';
import { messagesV2Router } from './http/routes/messages-v2/routes.ts';
import { outOfScopeRouter } from './http/routes/out-of-scope.ts';
import { sandboxRouter } from './http/routes/sandbox/routes.ts';
import { sendsRouter } from './http/routes/sends/routes.ts';
import { typingIndicatorsRouter } from './http/routes/typing-indicators/routes.ts';
import { AppError } from './services/app-error.ts';

/** Builds the HTTP app from its dependencies; no I/O happens here. */
export function buildApp(deps: AppDeps) {
  const app = new OpenAPIHono<AppEnv>();
  // First, so that every line logged while serving carries the request id and every answer is counted.
  app.use('*', requestContext(deps));
  if (deps.metricsEndpoint.enabled) app.route('/', metricsRouter(deps.metrics, deps.metricsEndpoint.bearerToken));
  app.route('/', healthRouter(deps.isReady));
  app.route('/', contactsRouter(deps));
  app.route('/', contactsV2Router(deps));
  app.route('/', messagesRouter(deps));
  app.route('/', messagesV2Router(deps));
  app.route('/', lookupsRouter(deps));
  app.route('/', sendsRouter(deps));
  app.route('/', typingIndicatorsRouter(deps));
  app.route('/', mediaRouter(deps));
  app.route('/', groupsRouter(deps));
  app.route('/', accountWebhooksRouter(deps));
  app.route('/', eventsRouter(deps));
  app.route('/', accountWebhookListsRouter(deps));
  if (deps.transportName === 'sandbox') app.route('/', sandboxRouter(deps));
  app.route('/', ingestRouter(deps));
  app.route('/', carrierWebhooksRouter(deps.carriers));
  app.route('/', inboxRouter(deps));
  app.route('/', outOfScopeRouter(deps));

  serveOpenApiDocument(app, deps.version);
  app.route('/', docsRouter());

  app.notFound((c) => respondWithError(c, 404, new AppError(ErrorCode.notFound, 'Not found')));
  app.onError(createErrorHandler(deps.log));
  return app;
}

export type App = ReturnType<typeof buildApp>;
