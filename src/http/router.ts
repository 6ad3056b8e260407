import { OpenAPIHono } from '@hono/zod-openapi';
import { createMiddleware } from 'hono/factory';
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

/** Route middleware for authenticated endpoints, run before validation so strangers learn nothing. */
export function authenticated(deps: ServiceDeps, errorShape: AppEnv['Variables']['errorShape']) {
  const setShape = createMiddleware<AppEnv>(async (c, next) => {
    c.set('errorShape', errorShape);
    await next();
  });
  return [setShape, requireAccount(deps)];
}

export const SECURITY = [{ apiKeyId: [], apiSecretKey: [] }];
