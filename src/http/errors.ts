import type { Context, ErrorHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { Logger } from 'pino';
import { ErrorCode } from '../domain/error-codes.ts';
import { AppError } from '../services/app-error.ts';
import { type StorageTrouble, storageTrouble, storageTroubleReason } from '../services/storage-errors.ts';
import type { AppEnv } from './env.ts';

const HTTP_STATUS: Record<number, ContentfulStatusCode> = {
  [ErrorCode.validation]: 400,
  [ErrorCode.rateLimited]: 429,
  [ErrorCode.blacklisted]: 400,
  [ErrorCode.unauthorized]: 401,
  [ErrorCode.planRequired]: 403,
  [ErrorCode.quotaExceeded]: 403,
  [ErrorCode.notFound]: 404,
  [ErrorCode.conflict]: 409,
  [ErrorCode.internal]: 500,
  [ErrorCode.notImplemented]: 501,
  [ErrorCode.overloaded]: 503,
};

/** Hono's own exceptions (malformed JSON, wrong media type, oversized body) in API terms. */
function fromHttpException(error: HTTPException): { status: ContentfulStatusCode; appError: AppError } {
  if (error.status === 413) {
    return { status: 413, appError: new AppError(ErrorCode.validation, 'Request body is larger than 1 MiB') };
  }
  if (error.status === 415) {
    return {
      status: 400,
      appError: new AppError(ErrorCode.validation, 'Content-Type must be application/json (or form-encoded for send-message)'),
    };
  }
  const message = error.message || 'Bad request';
  // biome-ignore lint/complexity/useMathMinMax: Math.min would widen the status to a plain number.
  return { status: error.status < 500 ? error.status : 500, appError: new AppError(ErrorCode.validation, message) };
}

export function respondWithError(c: Context<AppEnv>, status: ContentfulStatusCode, error: AppError): Response {
  if (error.retryAfterSeconds !== undefined) c.header('Retry-After', String(error.retryAfterSeconds));
  // Every 409 here (duplicates, reused keys) and every 501 answers the same on a retry: the SDK should not make one.
  if (status === 409 || status === 501) c.header('x-should-retry', 'false');
  if (c.get('errorShape') === 'contact' && error.code !== ErrorCode.unauthorized) {
    // The spec's contact errors: {status, message}, and a lower-case "error" for not-found.
    return c.json({ status: status === 404 ? 'error' : 'ERROR', message: error.message }, status);
  }
  return c.json(
    { status: 'ERROR', error_code: error.code, error_message: error.message, message: error.message, error_detail: error.detail },
    status,
  );
}

/** What the client is told when the storage refuses: nothing was done, and trying again later will work. */
const STORAGE_MESSAGES: Record<StorageTrouble, string> = {
  busy: 'Service overloaded, try again shortly',
  unavailable: 'Service unavailable: the database cannot be reached, try again shortly',
  unwritable: 'Service unavailable: the database cannot take writes right now, try again shortly',
  damaged: 'Service unavailable: the database file is damaged and must be restored by the operator',
};

/** One line per refused request; an unreachable database is logged once per outage instead (db/postgres/health.ts). */
const STORAGE_LOG: Record<Exclude<StorageTrouble, 'unavailable'>, string> = {
  busy: 'database busy',
  unwritable: 'database cannot take writes',
  damaged: 'database file damaged: restore it from a backup and restart',
};

export function createErrorHandler(log: Logger): ErrorHandler<AppEnv> {
  return (error, c) => {
    if (error instanceof AppError) return respondWithError(c, HTTP_STATUS[error.code] ?? 500, error);
    if (error instanceof HTTPException) {
      const { status, appError } = fromHttpException(error);
      return respondWithError(c, status, appError);
    }
    const trouble = storageTrouble(error);
    if (trouble !== undefined) {
      if (trouble !== 'unavailable') {
        const detail = { requestId: c.get('requestId'), path: c.req.path, ...storageTroubleReason(error) };
        log[trouble === 'damaged' ? 'error' : 'warn'](detail, STORAGE_LOG[trouble]);
      }
      // Retrying a damaged file soon does not help: no Retry-After.
      const retry = trouble === 'damaged' ? {} : { retryAfterSeconds: 1 };
      return respondWithError(c, 503, new AppError(ErrorCode.overloaded, STORAGE_MESSAGES[trouble], retry));
    }
    // Internal details stay in the log: they can carry SQL, paths or data of other accounts.
    log.error({ requestId: c.get('requestId'), err: error, method: c.req.method, path: c.req.path }, 'unhandled error');
    return respondWithError(c, 500, new AppError(ErrorCode.internal, 'Internal error'));
  };
}
