import type { ErrorCode } from '../domain/error-codes.ts';

/**
 * The one error type a use case throws on purpose. It carries the API's error code; the HTTP
 * layer maps the code to a status and a body, the CLI prints the message.
 */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly detail: string | null;
  readonly retryAfterSeconds: number | undefined;

  constructor(code: ErrorCode, message: string, options: { detail?: string; retryAfterSeconds?: number } = {}) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.detail = options.detail ?? null;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}
