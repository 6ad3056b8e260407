import { randomUUID } from 'node:crypto';
import { createMiddleware } from 'hono/factory';
import { routePath } from 'hono/route';
import type { Logger } from 'pino';
import type { Metrics } from '../metrics/metrics.ts';
import type { AppEnv } from './env.ts';

const REQUEST_ID_HEADER = 'x-request-id';

/** A caller's id is kept when it is short and plain: anything else could forge or break log lines. */
const WELL_FORMED_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
/** The route label of requests no route matched: their raw paths would make a new series each. */
const UNMATCHED_ROUTE = 'unmatched';
/** Other verbs share one label, for the same reason. */
const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
/** Probes and scrapes arrive every few seconds: at debug, so they do not bury the traffic. */
const QUIET_ROUTES = new Set(['/healthz', '/readyz', '/metrics']);

function newRequestId(): string {
  return `req_${randomUUID().replaceAll('-', '')}`;
}

/**
 * First middleware of the app: gives the request an id (the caller's `x-request-id` when
 * well-formed) that the response echoes and the request's log lines carry; then writes one access
 * line and counts the request under its route pattern.
 *
 * The id travels in the context, not in an AsyncLocalStorage: while one exists, Node runs a hook
 * on every promise of the process.
 */
export function requestContext(deps: { log: Logger; metrics: Pick<Metrics, 'requestServed'> }) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const started = performance.now();
    const incoming = c.req.header(REQUEST_ID_HEADER);
    const requestId = incoming !== undefined && WELL_FORMED_REQUEST_ID.test(incoming) ? incoming : newRequestId();
    // Set before the handlers, so every response they build (errors included) carries it.
    c.header(REQUEST_ID_HEADER, requestId);
    c.set('requestId', requestId);
    const ownRoute = c.req.routeIndex;
    await next();
    // A response built as a raw Response bypasses the prepared headers.
    if (!c.res.headers.has(REQUEST_ID_HEADER)) c.header(REQUEST_ID_HEADER, requestId);
    // routeIndex is left on the handler that answered; still ours when no route matched.
    const route = c.req.routeIndex === ownRoute ? UNMATCHED_ROUTE : routePath(c);
    const method = KNOWN_METHODS.has(c.req.method) ? c.req.method : 'OTHER';
    const { status } = c.res;
    const seconds = (performance.now() - started) / 1000;
    deps.metrics.requestServed(method, route, status, seconds);
    const level = status >= 500 ? 'warn' : QUIET_ROUTES.has(route) ? 'debug' : 'info';
    if (!deps.log.isLevelEnabled(level)) return;
    // The path without its query string: queries carry phone numbers and handles, and the route says enough.
    deps.log[level]({ requestId, method, route, path: c.req.path, status, durationMs: Math.round(seconds * 10_000) / 10 }, 'request');
  });
}
