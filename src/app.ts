import { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from './http/env.ts';
import { createErrorHandler, respondWithError } from './http/errors.ts';
import { ErrorCode } from './domain/error-codes.ts';
import { AppError } from './services/app-error.ts';
import { serveOpenApiDocument } from './http/openapi.ts';
import { contactsRouter } from './http/routes/contacts/routes.ts';
import { docsRouter } from './http/routes/docs.ts';
import { healthRouter } from './http/routes/health.ts';
import { inboxRouter } from './http/inbox/router.tsx';
import { ingestRouter, type IngestDeps } from './http/routes/ingest/routes.ts';
import { messagesRouter } from './http/routes/messages/routes.ts';
import { sandboxRouter } from './http/routes/sandbox/routes.ts';
import { sendsRouter } from './http/routes/sends/routes.ts';
import type { ProxySettings } from './http/forwarded.ts';
import { metricsRouter, type MetricsEndpoint } from './http/metrics.ts';
import { requestContext } from './http/request-context.ts';
import type { Metrics } from './metrics/metrics.ts';
import { webhooksRouter } from './http/routes/webhooks/routes.ts';
import type { ServiceDeps } from './services/deps.ts';
import type { SignInThrottle } from './services/sign-in-throttle.ts';
import type { NotifierHub } from './services/notifier.ts';
import type { CallbackUrlCheck } from './webhooks/ssrf.ts';

export type AppDeps = ServiceDeps & Pick<IngestDeps, 'transportName' | 'ingestSecrets'> & {
  /** Readiness probe: true while the database accepts writes. */
  isReady: () => boolean;
  version: string;
  /** Refuses (AppError 4000) a callback URL that is malformed or, when private callbacks are refused, not public. */
  checkCallbackUrl: CallbackUrlCheck;
  /** The services' notifier; the inbox's live pages watch accounts through it. */
  notify: NotifierHub;
  /** This app's Prometheus metrics (a registry per app, never the global one). */
  metrics: Metrics;
  metricsEndpoint: MetricsEndpoint;
  /** Counts failed inbox sign-ins per key id and per client address, and locks both out past the limit. */
  signInThrottle: SignInThrottle;
  /** Whether to believe a reverse proxy's X-Forwarded-* headers, and whether the public URL is https. */
  proxy: ProxySettings;
};

/** Builds the HTTP app from its dependencies; no I/O happens here. */
export function buildApp(deps: AppDeps) {
  const app = new OpenAPIHono<AppEnv>();
  // First, so that every line logged while serving carries the request id and every answer is counted.
  app.use('*', requestContext(deps));
  if (deps.metricsEndpoint.enabled) app.route('/', metricsRouter(deps.metrics, deps.metricsEndpoint.bearerToken));
  app.route('/', healthRouter(deps.isReady));
  app.route('/', contactsRouter(deps));
  app.route('/', messagesRouter(deps));
  app.route('/', sendsRouter(deps));
  app.route('/', webhooksRouter(deps));
  if (deps.transportName === 'sandbox') app.route('/', sandboxRouter(deps));
  app.route('/', ingestRouter(deps));
  app.route('/', inboxRouter(deps));

  serveOpenApiDocument(app, deps.version);
  app.route('/', docsRouter());

  app.notFound((c) => respondWithError(c, 404, new AppError(ErrorCode.notFound, 'Not found')));
  app.onError(createErrorHandler(deps.log));
  return app;
}

export type App = ReturnType<typeof buildApp>;
