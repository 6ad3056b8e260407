import { createMiddleware } from 'hono/factory';
import { ErrorCode } from '../domain/error-codes.ts';
import { authenticate } from '../services/accounts.ts';
import { AppError } from '../services/app-error.ts';
import type { ServiceDeps } from '../services/deps.ts';
import type { AppEnv } from './env.ts';

/** Clients of the public service this API mirrors send the sb- spelling; header names are case-insensitive. */
function credential(header: (name: string) => string | undefined, suffix: string): string | undefined {
  return header(`svc-${suffix}`) ?? header(`sb-${suffix}`);
}

export function requireAccount(deps: ServiceDeps) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const header = (name: string) => c.req.header(name);
    const keyId = credential(header, 'api-key-id');
    const secret = credential(header, 'api-secret-key');
    const account = keyId && secret ? await authenticate(deps, keyId, secret) : undefined;
    // One answer for every failure, so a caller cannot tell a wrong key id from a wrong secret.
    if (!account) throw new AppError(ErrorCode.unauthorized, 'Invalid or missing API credentials');
    c.set('account', account);
    await next();
  });
}
