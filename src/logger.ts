import { AsyncLocalStorage } from 'node:async_hooks';
import pino, { type DestinationStream, type Logger } from 'pino';
import pretty from 'pino-pretty';

/** Fields added to every line logged inside `withLogContext`: the request id while a request is served. */
export type LogContext = { requestId: string };

/*
 * An AsyncLocalStorage is a key, not state: what `run` stores lives only in that call's async
 * chain, so the apps of one process (tests build many) never see each other's requests. Through
 * it, services that log with `deps.log` tag their lines without being handed the request.
 */
const logContext = new AsyncLocalStorage<LogContext>();

export function withLogContext<T>(context: LogContext, work: () => T): T {
  return logContext.run(context, work);
}

/**
 * Defence in depth: nothing logs request bodies, headers or rows, but should a secret or message
 * text reach a log call under one of these names, the line carries "[redacted]" instead. Exact
 * paths only: a leading wildcard (`*.content`) makes pino walk every line's fields, which cost
 * about six times the line itself when measured.
 */
const SECRET_FIELDS = ['api_secret_key', 'apiSecretHash', 'secret', 'webhookSecret', 'previousWebhookSecret', 'content', 'payload'];
const HOLDERS = ['account', 'message', 'body', 'delivery', 'row'];
const SECRET_HEADERS = ['svc-api-secret-key', 'sb-api-secret-key', 'svc-signing-secret', 'sb-signing-secret', 'webhook-signature', 'authorization', 'cookie', 'set-cookie'];
const REDACTED = [
  ...SECRET_FIELDS,
  ...HOLDERS.flatMap((holder) => SECRET_FIELDS.map((field) => `${holder}.${field}`)),
  ...['headers', 'req.headers', 'res.headers'].flatMap((holder) => SECRET_HEADERS.map((name) => `${holder}["${name}"]`)),
];

/**
 * JSON lines for machines; coloured, readable lines when stdout is a terminal (a person is
 * watching). `destination` replaces stdout (tests read the lines from memory).
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level,
    // A fresh object each time: pino merges the line's own fields into what mixin returns.
    mixin: () => {
      const context = logContext.getStore();
      return context === undefined ? {} : { requestId: context.requestId };
    },
    redact: { paths: REDACTED, censor: '[redacted]' },
  };
  const stream = destination ?? (process.stdout.isTTY ? pretty({ colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' }) : undefined);
  return stream === undefined ? pino(options) : pino(options, stream);
}
