import pino, { type Logger } from 'pino';

/** JSON lines for machines; secrets are redacted wherever a field of that name appears. */
export function createLogger(level: string): Logger {
  return pino({
    level,
    redact: {
      paths: ['*.api_secret_key', '*.apiSecretHash', 'req.headers["svc-api-secret-key"]', 'req.headers["sb-api-secret-key"]'],
      censor: '[redacted]',
    },
  });
}
