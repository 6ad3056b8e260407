import { type OpenAPIHono, z } from '@hono/zod-openapi';
import { MAX_BODY_BYTES } from '../domain/limits.ts';
import type { AppEnv } from './env.ts';
import { registerWebhookPayloads } from './routes/account-webhooks/callbacks.ts';

/**
 * The frame of `/openapi.json`: metadata, tags, credential schemes and the error answers every
 * route shares. The operations themselves are declared beside their handlers
 * (`routes/<resource>/routes.ts`), their bodies in `routes/<resource>/schemas.ts`.
 */

type Registry = OpenAPIHono<AppEnv>['openAPIRegistry'];

const TAGS = [
  { name: 'Sending', description: 'Send to one person or a group; every send answers 202 with the message QUEUED.' },
  { name: 'Groups', description: 'Retrieve, rename and set the photo of a group (sapphire plan).' },
  { name: 'Messages', description: "Read the account's messages and each one's status history." },
  { name: 'Contacts', description: "The account's contacts. Errors keep the spec's `{status, message}` body (except 401)." },
  {
    name: 'Contacts (SDK)',
    description: "The official SDK's contacts calls, keyed by phone number; errors in the message shape (`error_code`, `error_message`).",
  },
  { name: 'Events', description: "The account's event log as server-sent events, live, resumable with Last-Event-ID." },
  { name: 'Webhooks', description: 'Receive webhook URLs, the signing secret, and the log of every callback sent.' },
  { name: 'Sandbox', description: 'Play the end user: present only when the transport is the sandbox.' },
  {
    name: 'Transport callbacks',
    description: 'Where the transport (or the upstream service) reports statuses and inbound messages; authenticated by the ingest secret.',
  },
  { name: 'Lines and lookups', description: "Which service reaches a number, and the state of the account's lines." },
  { name: 'Not supported', description: 'Calls of the official SDK that textrelay does not offer: each answers 501 (error_code 5010).' },
  { name: 'Health', description: 'Liveness and readiness probes, without credentials.' },
];

const RETRY_AFTER = { schema: { type: 'integer' as const }, description: 'Seconds to wait before trying again' };

const MessageError = z
  .object({
    status: z.literal('ERROR'),
    error_code: z.number().int().openapi({
      description:
        '4000 validation, 4001 rate limited, 4002 blacklisted number, 4010 credentials, 4030 plan, 4031 quota, 4040 not found, 4090 conflict, 5000 internal, 5003 overloaded, 5010 not supported',
      example: 4000,
    }),
    error_message: z.string(),
    message: z.string().openapi({ description: 'Same as error_message, for older clients' }),
    error_detail: z.string().nullable(),
  })
  .openapi('MessageError');

const ContactError = z
  .object({
    status: z.enum(['ERROR', 'error']).openapi({ description: 'Lower-case "error" for a contact not found (404)' }),
    message: z.string(),
  })
  .openapi('ContactError');

type ErrorShape = 'message' | 'contact';
const SHAPES = {
  message: { schema: MessageError, name: 'MessageError', prefix: '' },
  contact: { schema: ContactError, name: 'ContactError', prefix: 'Contact' },
} as const;

/** What any API route can answer whatever its input; contact routes answer them in their own shape. */
const SHARED_ERRORS = {
  413: { name: 'PayloadTooLarge', code: 4000, description: `Body larger than ${MAX_BODY_BYTES / 1024 / 1024} MiB; nothing was done` },
  500: { name: 'InternalError', code: 5000, description: 'Internal error; the details are logged, never answered' },
  503: {
    name: 'Overloaded',
    code: 5003,
    description: 'The database stayed busy or cannot take writes; nothing was done, try again after Retry-After',
    headers: { 'Retry-After': RETRY_AFTER },
  },
} as const;
type SharedStatus = keyof typeof SHARED_ERRORS;

const responseRef = (name: string) => ({ $ref: `#/components/responses/${name}` });
const jsonOf = (schemaName: string) => ({ 'application/json': { schema: { $ref: `#/components/schemas/${schemaName}` } } });

function registerErrorResponses(registry: Registry): void {
  for (const { schema, name } of Object.values(SHAPES)) registry.register(name, schema);
  // Credentials are checked before the route's shape matters: a 401 always has the message shape.
  registry.registerComponent('responses', 'Unauthorized', {
    description:
      'Missing or wrong credentials (error_code 4010): the API key pair, or for /webhooks/* the signing secret or signature. The answer never says which part was wrong.',
    content: jsonOf(SHAPES.message.name),
  });
  for (const shape of Object.values(SHAPES)) {
    for (const { name, code, description, ...response } of Object.values(SHARED_ERRORS)) {
      // Only the message shape carries an error_code.
      registry.registerComponent('responses', `${shape.prefix}${name}`, {
        ...response,
        description: shape === SHAPES.message ? `${description} (error_code ${code})` : description,
        content: jsonOf(shape.name),
      });
    }
  }
}

/** The statuses a route answers because of what it does, each with what causes it and its error_code. */
type RouteErrors = Partial<Record<400 | 403 | 404 | 409 | 429 | 501, string>>;

const WRITE_LIMITED =
  'Too many writes for this account: more rows than TEXTRELAY_WRITE_RATE_LIMIT_PER_MINUTE a minute (4001); nothing was done, try again after Retry-After';

/**
 * A route's error answers: its own (`statuses`), then those every API route can give. Routes that
 * read no body can still be refused for one (the size limit runs first), but GETs never carry one.
 * Routes that write (by default those with a body) count against the account's write limit.
 */
export function apiErrors(shape: ErrorShape, statuses: RouteErrors, options: { body: boolean; writes?: boolean } = { body: true }) {
  const writes = options.writes ?? options.body;
  const own = Object.fromEntries(
    Object.entries({ ...(writes ? { 429: WRITE_LIMITED } : {}), ...statuses }).map(([status, description]) => [
      status,
      {
        description,
        content: { 'application/json': { schema: SHAPES[shape].schema } },
        ...(status === '429' ? { headers: { 'Retry-After': RETRY_AFTER } } : {}),
      },
    ]),
  );
  const shared = (status: SharedStatus) => responseRef(`${SHAPES[shape].prefix}${SHARED_ERRORS[status].name}`);
  return {
    ...own,
    401: responseRef('Unauthorized'),
    ...(options.body ? { 413: shared(413) } : {}),
    500: shared(500),
    503: shared(503),
  };
}

export const API_SECURITY = [{ apiKeyId: [], apiSecretKey: [] }];
export const INGEST_SECURITY = [{ signingSecret: [] }];

function registerSecuritySchemes(registry: Registry): void {
  registry.registerComponent('securitySchemes', 'apiKeyId', {
    type: 'apiKey',
    in: 'header',
    name: 'svc-api-key-id',
    description: 'Account key id (sb-api-key-id is accepted too; header names in any letter case)',
  });
  registry.registerComponent('securitySchemes', 'apiSecretKey', {
    type: 'apiKey',
    in: 'header',
    name: 'svc-api-secret-key',
    description: 'Account secret, shown once when the account is created (sb-api-secret-key is accepted too)',
  });
  registry.registerComponent('securitySchemes', 'signingSecret', {
    type: 'apiKey',
    in: 'header',
    name: 'svc-signing-secret',
    description:
      'TEXTRELAY_INGEST_SECRET (sb-signing-secret is accepted too), or instead a Standard Webhooks signature made with it (webhook-id, webhook-timestamp and webhook-signature headers)',
  });
}

/** Completes the app's registry and serves the document at `/openapi.json`. */
export function serveOpenApiDocument(app: OpenAPIHono<AppEnv>, version: string): void {
  registerSecuritySchemes(app.openAPIRegistry);
  registerErrorResponses(app.openAPIRegistry);
  registerWebhookPayloads(app.openAPIRegistry);
  const config = {
    openapi: '3.1.0',
    info: {
      title: 'textrelay',
      version,
      description:
        'Self-hosted messaging gateway: send iMessage/SMS, follow each message through QUEUED, SENT, DELIVERED and READ, and receive replies, with signed webhooks. Browse it at /docs.',
    },
    tags: TAGS,
  };
  // doc31 would generate the document on every request (tens of milliseconds walking every schema,
  // on a route anyone may call); the routes are fixed once buildApp returns, so once is enough.
  let document: string | undefined;
  app.get('/openapi.json', (c) => {
    document ??= JSON.stringify(app.getOpenAPI31Document(config));
    return c.body(document, 200, { 'content-type': 'application/json' });
  });
}
