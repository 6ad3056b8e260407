import pino, { type DestinationStream, type Logger } from 'pino';
import pretty from 'pino-pretty';
import { databaseCause } from './db/query-errors.ts';

/**
 * Defence in depth: nothing logs request bodies, headers or rows, but should a secret or message
 * text reach a log call under one of these names, the line carries "[redacted]" instead. Exact
 * paths only: a leading wildcard (`*.content`) makes pino walk every line's fields, which costs
 * more than writing the line.
 */
const SECRET_FIELDS = [
  'api_secret_key',
  'apiSecretHash',
  'secret',
  'upstreamSecret',
  'webhookSecret',
  'previousWebhookSecret',
  'content',
  'payload',
  'password',
  'authToken',
];
const HOLDERS = ['account', 'message', 'body', 'delivery', 'row'];
const SECRET_HEADERS = [
  'svc-api-secret-key',
  'sb-api-secret-key',
  'svc-signing-secret',
  'sb-signing-secret',
  'webhook-signature',
  'x-twilio-signature',
  'x-signature',
  'authorization',
  'cookie',
  'set-cookie',
];
const REDACTED = [
  ...SECRET_FIELDS,
  ...HOLDERS.flatMap((holder) => SECRET_FIELDS.map((field) => `${holder}.${field}`)),
  ...['headers', 'req.headers', 'res.headers'].flatMap((holder) => SECRET_HEADERS.map((name) => `${holder}["${name}"]`)),
];

/** Fields of a database error that carry the statement and its values: a kilobyte a line, and other accounts' data. */
const STATEMENT_FIELDS = ['query', 'parameters', 'params'];

/**
 * URL paths that are themselves credentials: a media file's id (anyone holding its URL gets the
 * file) and a carrier's webhook secret (BlueBubbles signs nothing, so its URL is the proof). Long
 * random segments only, so `/webhooks/carriers/twilio/status` stays readable.
 */
const CAPABILITY_PATH = /(\/media\/|\/webhooks\/carriers\/[a-z]+\/)[A-Za-z0-9_-]{16,}/g;

/** A written line with every capability path's secret part replaced, whichever field (a path, a URL, an error's text) holds it. */
export function scrubCapabilities(line: string): string {
  if (!line.includes('/media/') && !line.includes('/webhooks/carriers/')) return line;
  return line.replace(CAPABILITY_PATH, '$1[redacted]');
}

/** An error as pino writes it, but a failed query's as the database's own error, without its statement. */
function serializeError(error: unknown): unknown {
  const raised = databaseCause(error);
  if (!(raised instanceof Error)) return raised;
  const serialized = pino.stdSerializers.err(raised) as Record<string, unknown>;
  for (const field of STATEMENT_FIELDS) delete serialized[field];
  return serialized;
}

/**
 * JSON lines for machines; coloured, readable lines when stdout is a terminal (a person is
 * watching). `destination` replaces stdout (tests read the lines from memory).
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level,
    redact: { paths: REDACTED, censor: '[redacted]' },
    serializers: { err: serializeError },
    hooks: { streamWrite: scrubCapabilities },
  };
  const stream =
    destination ?? (process.stdout.isTTY ? pretty({ colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' }) : undefined);
  return stream === undefined ? pino(options) : pino(options, stream);
}
