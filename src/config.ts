import { z } from 'zod';
import { classifyLiteralHost, type OutboundPolicy, refusalOf } from './domain/address-policy.ts';
import { isValidTimeZone } from './domain/dates.ts';
import { isHttpUrl } from './domain/media-url.ts';

const Url = z.string().refine(isHttpUrl, { message: 'must be an absolute http(s) URL' });
const Flag = z.enum(['true', 'false', '1', '0']).transform((value) => value === 'true' || value === '1');
const Port = z.coerce.number().int().min(0).max(65535);

/**
 * Every setting, from the environment with command-line flags on top, parsed once at start.
 * A bad value stops the process with a message naming the variable, not a crash later.
 */
export const ConfigSchema = z
  .object({
    PORT: Port.default(3000),
    /** Loopback by default: a development gateway should not be reachable from the network by accident. */
    HOST: z.string().min(1).default('127.0.0.1'),
    /** Behind a proxy or load balancer, longer than its idle timeout, so that it never reuses a connection being closed. */
    TEXTRELAY_KEEP_ALIVE_TIMEOUT_MS: z.coerce.number().int().min(1).default(5_000),
    TEXTRELAY_MAX_CONNECTIONS: z.coerce.number().int().min(1).default(10_000),
    TEXTRELAY_DB: z.string().min(1).default('./data/textrelay.db'),
    /** A postgres:// URL selects PostgreSQL, shared by any number of instances; a file path here means SQLite, as TEXTRELAY_DB. */
    TEXTRELAY_DATABASE_URL: z.string().min(1).optional(),
    /** Connections each instance holds to PostgreSQL; N instances hold N times as many, under the server's max_connections. */
    TEXTRELAY_DATABASE_POOL_SIZE: z.coerce.number().int().min(2).max(1000).default(10),
    /** PostgreSQL cancels a statement running longer than this, so a stuck query frees its connection; 0 never cancels. */
    TEXTRELAY_DATABASE_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(0).default(30_000),
    /** serve and migrate check the file's pages first when it is at most this large (a full read: seconds per GB); 0 never checks. */
    TEXTRELAY_INTEGRITY_CHECK_MAX_MB: z.coerce.number().int().min(0).default(256),
    TEXTRELAY_TRANSPORT: z.enum(['sandbox', 'upstream']).default('sandbox'),
    TEXTRELAY_PUBLIC_URL: Url.optional(),
    /** Where the media URLs textrelay hands out point (another origin than the inbox's, e.g. https://media.example.com); TEXTRELAY_PUBLIC_URL when unset. */
    TEXTRELAY_MEDIA_URL: Url.optional(),
    TEXTRELAY_SANDBOX_STEP_MS: z.coerce.number().int().min(0).default(1000),
    TEXTRELAY_INGEST_SECRET: z.string().min(1).optional(),
    TEXTRELAY_UPSTREAM_URL: Url.optional(),
    TEXTRELAY_UPSTREAM_KEY_ID: z.string().min(1).optional(),
    TEXTRELAY_UPSTREAM_SECRET: z.string().min(1).optional(),
    TEXTRELAY_WEBHOOK_RETRY_SCHEDULE: z
      .string()
      .regex(/^\d+(\.\d+)?(,\d+(\.\d+)?)*$/, 'must be seconds, comma-separated (e.g. 5,30,120)')
      .default('5,30,120,600,1800,3600,10800,21600,43200,86400'),
    /** Days a delivered or given-up callback stays in the delivery log (and can be replayed); 0 keeps it forever. */
    TEXTRELAY_DELIVERY_RETENTION_DAYS: z.coerce.number().int().min(0).default(30),
    /** Days a status event for a handle no message has waits for that message's hand-over before it is dropped; 0 keeps it forever. */
    TEXTRELAY_ORPHAN_EVENT_RETENTION_DAYS: z.coerce.number().int().min(0).default(7),
    /** Days an inbound message for a line no account owns stays visible to the operator; 0 keeps it forever. */
    TEXTRELAY_UNROUTED_RETENTION_DAYS: z.coerce.number().int().min(0).default(30),
    /** Days an uploaded file stays served; a group's current photo stays while it is one; 0 keeps files forever. */
    TEXTRELAY_MEDIA_RETENTION_DAYS: z.coerce.number().int().min(0).default(90),
    /** Megabytes of files an account may keep stored (uploads and group photos); one more is refused with 403; 0 sets no limit. */
    TEXTRELAY_MEDIA_QUOTA_MB: z.coerce.number().int().min(0).default(500),
    /** Live contacts an account may create through the API; one more is refused with 403; 0 sets no limit. */
    TEXTRELAY_CONTACTS_QUOTA: z.coerce.number().int().min(0).default(100_000),
    /** Days an event stays in the account event log that GET /api/v2/events resumes from; 0 keeps it forever. */
    TEXTRELAY_EVENT_RETENTION_DAYS: z.coerce.number().int().min(0).default(7),
    /** Open GET /api/v2/events streams an account may hold at once; one more is refused with 429. */
    TEXTRELAY_EVENT_STREAMS_PER_ACCOUNT: z.coerce.number().int().min(1).default(5),
    /** Unset: allowed with the sandbox (receivers on a developer's machine), refused with upstream (a server). */
    TEXTRELAY_ALLOW_PRIVATE_CALLBACKS: Flag.optional(),
    /** Link-local and cloud-metadata addresses hold credentials: refused in every mode unless this says otherwise. */
    TEXTRELAY_ALLOW_LINK_LOCAL_CALLBACKS: Flag.default(false),
    TEXTRELAY_DISPLAY_TZ: z.string().refine(isValidTimeZone, { message: 'must be an IANA time zone such as Europe/Paris' }).default('UTC'),
    /** Sends per account per minute; 0 turns the limit off. Generous so that bursts from real apps pass. */
    TEXTRELAY_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).default(6000),
    /** Failed inbox sign-ins a key id, and a client address, may make in a window before the next are refused (429); 0 turns this off. */
    TEXTRELAY_INBOX_LOGIN_MAX_FAILURES: z.coerce.number().int().min(0).default(10),
    TEXTRELAY_INBOX_LOGIN_WINDOW_SECONDS: z.coerce.number().int().min(1).default(900),
    /** true: a reverse proxy in front is believed about the client (last X-Forwarded-For address) and the scheme (X-Forwarded-Proto). */
    TEXTRELAY_TRUST_PROXY: Flag.default(false),
    TEXTRELAY_NUMBERS_PER_ACCOUNT: z.coerce.number().int().min(1).max(100).default(2),
    /** false: /metrics is not served (404). */
    TEXTRELAY_METRICS: Flag.default(true),
    /** When set, /metrics answers only `Authorization: Bearer <token>`; long enough not to be guessed. */
    TEXTRELAY_METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  })
  .transform((config) => ({
    ...config,
    TEXTRELAY_ALLOW_PRIVATE_CALLBACKS: config.TEXTRELAY_ALLOW_PRIVATE_CALLBACKS ?? config.TEXTRELAY_TRANSPORT === 'sandbox',
  }))
  .superRefine((config, ctx) => {
    const database = databaseSetting(config);
    if (URL_SCHEME.test(database.value) && !POSTGRES_SCHEME.test(database.value)) {
      ctx.addIssue({ code: 'custom', path: [database.key], message: 'must be a postgres:// URL or a SQLite file path' });
    }
    if (config.TEXTRELAY_TRANSPORT !== 'upstream') return;
    // Without these the relay could not send, or its provider could not call back: refuse to start rather than fail every message.
    for (const key of [
      'TEXTRELAY_UPSTREAM_URL',
      'TEXTRELAY_UPSTREAM_KEY_ID',
      'TEXTRELAY_UPSTREAM_SECRET',
      'TEXTRELAY_PUBLIC_URL',
    ] as const) {
      if (config[key] === undefined)
        ctx.addIssue({ code: 'custom', path: [key], message: 'is required when TEXTRELAY_TRANSPORT is upstream' });
    }
    if (config.TEXTRELAY_UPSTREAM_URL === undefined) return;
    const { hostname } = new URL(config.TEXTRELAY_UPSTREAM_URL);
    const literal = classifyLiteralHost(hostname);
    const refusal = literal && refusalOf(literal, outboundPolicyOf(config));
    if (refusal) {
      const setting = literal === 'private' ? 'TEXTRELAY_ALLOW_PRIVATE_CALLBACKS' : 'TEXTRELAY_ALLOW_LINK_LOCAL_CALLBACKS';
      ctx.addIssue({
        code: 'custom',
        path: ['TEXTRELAY_UPSTREAM_URL'],
        message: `is ${hostname}, ${refusal}: set ${setting}=true to relay to it`,
      });
    }
  });

export type Config = z.output<typeof ConfigSchema>;

const URL_SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;
const POSTGRES_SCHEME = /^postgres(ql)?:\/\//i;

/** The variable that names the database: TEXTRELAY_DATABASE_URL when set, else TEXTRELAY_DB. */
function databaseSetting(config: Pick<Config, 'TEXTRELAY_DB' | 'TEXTRELAY_DATABASE_URL'>) {
  return config.TEXTRELAY_DATABASE_URL === undefined
    ? { key: 'TEXTRELAY_DB', value: config.TEXTRELAY_DB }
    : { key: 'TEXTRELAY_DATABASE_URL', value: config.TEXTRELAY_DATABASE_URL };
}

export type DatabaseChoice = { backend: 'sqlite'; file: string } | { backend: 'postgres'; url: string };

/** Which database the configuration names: PostgreSQL for a postgres:// URL, else the SQLite file at that path. */
export function databaseOf(config: Pick<Config, 'TEXTRELAY_DB' | 'TEXTRELAY_DATABASE_URL'>): DatabaseChoice {
  const { value } = databaseSetting(config);
  return POSTGRES_SCHEME.test(value) ? { backend: 'postgres', url: value } : { backend: 'sqlite', file: value };
}

export class ConfigError extends Error {}

/** Which addresses outbound requests (callbacks, receive webhooks, the upstream relay) may reach. */
export function outboundPolicyOf(
  config: Pick<Config, 'TEXTRELAY_ALLOW_PRIVATE_CALLBACKS' | 'TEXTRELAY_ALLOW_LINK_LOCAL_CALLBACKS'>,
): OutboundPolicy {
  return { allowPrivate: config.TEXTRELAY_ALLOW_PRIVATE_CALLBACKS, allowLinkLocal: config.TEXTRELAY_ALLOW_LINK_LOCAL_CALLBACKS };
}

/** Parses env (and flag overrides, named like the variables); throws ConfigError listing every bad value. */
export function loadConfig(env: Record<string, string | undefined>, overrides: Record<string, string | undefined> = {}): Config {
  const merged: Record<string, string> = {};
  for (const source of [env, overrides]) {
    for (const [key, value] of Object.entries(source)) {
      // An empty variable means "not set", as in most shells' `VAR= cmd`.
      if (value !== undefined && value !== '') merged[key] = value;
    }
  }
  const result = ConfigSchema.safeParse(merged);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration:\n${problems.join('\n')}`);
  }
  return result.data;
}
