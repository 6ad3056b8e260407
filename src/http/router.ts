import { OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { createMiddleware } from 'hono/factory';
import { HTTPException } from 'hono/http-exception';
import { MAX_BODY_BYTES } from '../domain/limits.ts';
import type { ServiceDeps } from '../services/deps.ts';
import { limitWrites } from '../services/rate-limiter.ts';
import { refuseUnstorableText, validationError } from '../services/validation.ts';
import { requireAccount } from './auth.ts';
import type { AppEnv } from './env.ts';

/** A validated part of the request as the caller sent it (a JSON body or the query), before parsing renamed its fields. */
export function sentInput(c: Context, target: string): () => Promise<unknown> {
  return async () => (target === 'json' ? await c.req.json() : target === 'query' ? c.req.query() : undefined);
}

/** Every router shares one validation hook, so every 400 has the same shape. */
export function createRouter() {
  return new OpenAPIHono<AppEnv>({
    defaultHook: async (result, c) => {
      if (!result.success) throw validationError(result.error);
      await refuseUnstorableText(result.data, sentInput(c, result.target));
    },
  });
}

function tooLarge(): never {
  throw new HTTPException(413);
}

const countStreamedBody = bodyLimit({ maxSize: MAX_BODY_BYTES, onError: tooLarge });

/**
 * Caps request bodies at MAX_BODY_BYTES. hono's bodyLimit starts by reading `c.req.raw.body`, which
 * makes @hono/node-server build a full web Request (headers, AbortController, body stream) for
 * every request, GETs included, and then serves the body through that stream rather than its fast
 * path. No handler reads a GET's body, and a declared length needs no
 * reading (node's parser never delivers more than Content-Length bytes): only a body of unknown
 * length is counted as it streams.
 */
export const limitBody = createMiddleware(async (c, next) => {
  if (c.req.method === 'GET' || c.req.method === 'HEAD') return next();
  const declaredLength = c.req.header('content-length');
  if (declaredLength !== undefined && c.req.header('transfer-encoding') === undefined) {
    if (Number(declaredLength) > MAX_BODY_BYTES) tooLarge();
    return next();
  }
  return countStreamedBody(c, next);
});

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * How a route's writes count against the account's write limit: one per request, by its handler
 * (a bulk call counts its rows once it knows them), or not at all (sends have their own limit,
 * unsupported calls write nothing).
 */
export type WriteCount = 'per request' | 'by handler' | 'none';

/**
 * The middleware of every API route, in order: choose the error shape first (so even a size or
 * auth failure answers in the route's shape), cap the body, then authenticate before validation
 * so strangers learn nothing about the input rules, then count a write against the account's limit.
 */
export function apiRoute(deps: ServiceDeps, errorShape: AppEnv['Variables']['errorShape'], writes: WriteCount = 'per request') {
  const setShape = createMiddleware<AppEnv>(async (c, next) => {
    c.set('errorShape', errorShape);
    await next();
  });
  const countWrite = createMiddleware<AppEnv>(async (c, next) => {
    if (WRITE_METHODS.has(c.req.method)) await limitWrites(deps, c.get('account').id);
    await next();
  });
  return writes === 'per request' ? [setShape, limitBody, requireAccount(deps), countWrite] : [setShape, limitBody, requireAccount(deps)];
}
