import { OpenAPIHono } from '@hono/zod-openapi';
import { bodyLimit } from 'hono/body-limit';
import { createMiddleware } from 'hono/factory';
import { HTTPException } from 'hono/http-exception';
import { MAX_BODY_BYTES } from '../domain/limits.ts';
import type { ServiceDeps } from '../services/deps.ts';
import { requireAccount } from './auth.ts';
import type { AppEnv } from './env.ts';
import { validationError } from './errors.ts';

/** Every router shares one validation hook, so every 400 has the same shape. */
export function createRouter() {
  return new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (!result.success) throw validationError(result.error);
    },
  });
}

export const limitBody = bodyLimit({
  maxSize: MAX_BODY_BYTES,
  onError: () => {
    throw new HTTPException(413);
  },
});

/**
 * The middleware of every API route, in order: choose the error shape first (so even a size or
 * auth failure answers in the route's shape), cap the body, then authenticate before validation
 * so strangers learn nothing about the input rules.
 */
export function apiRoute(deps: ServiceDeps, errorShape: AppEnv['Variables']['errorShape']) {
  const setShape = createMiddleware<AppEnv>(async (c, next) => {
    c.set('errorShape', errorShape);
    await next();
  });
  return [setShape, limitBody, requireAccount(deps)];
}
