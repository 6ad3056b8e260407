import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { ALLOWING_SETTING, classifyLiteralHost, type OutboundPolicy, refusalOf } from './domain/address-policy.ts';
import { CARRIERS, type CarrierName, carriersOf, type TransportMode, transportModeOf } from './domain/carriers.ts';
import { isValidTimeZone } from './domain/dates.ts';
import { isHttpUrl } from './domain/media-url.ts';

const Url = z.string().refine(isHttpUrl, { message: 'must be an absolute http(s) URL' });
const Flag = z.enum(['true', 'false', '1', '0']).transform((value) => value === 'true' || value === '1');
const Port = z.coerce.number().int().min(0).max(65535);
const Seconds = z.string().regex(/^\d+(\.\d+)?(,\d+(\.\d+)?)*$/, 'must be seconds, comma-separated (e.g. 5,30,120)');

/** What each carrier cannot start without; TEXTRELAY_PUBLIC_URL is how it reaches textrelay's webhooks and media. */
const CARRIER_SETTINGS: Record<CarrierName, readonly (keyof z.input<typeof ConfigFields>)[]> = {
  bluebubbles: ['TEXTRELAY_BLUEBUBBLES_URL', 'TEXTRELAY_BLUEBUBBLES_PASSWORD', 'TEXTRELAY_PUBLIC_URL'],
  twilio: ['TEXTRELAY_TWILIO_ACCOUNT_SID', 'TEXTRELAY_TWILIO_AUTH_TOKEN', 'TEXTRELAY_PUBLIC_URL'],
  smsgate: [
    'TEXTRELAY_SMSGATE_URL',
    'TEXTRELAY_SMSGATE_USERNAME',
    'TEXTRELAY_SMSGATE_PASSWORD',
    'TEXTRELAY_SMSGATE_SIGNING_KEY',
    'TEXTRELAY_PUBLIC_URL',
  ],
};

/**
 * Every setting, from the environment with command-line flags on top, parsed once at start.
 * A bad value stops the process with a message naming the variable, not a crash later.
 */
/** The setting holding the address of each carrier's server. */
const CARRIER_URL = {
  bluebubbles: 'TEXTRELAY_BLUEBUBBLES_URL',
  twilio: 'TEXTRELAY_TWILIO_API_URL',
  smsgate: 'TEXTRELAY_SMSGATE_URL',
} as const;

const TransportSetting = z.string().transform((value, ctx): TransportMode => {
  const mode = transportModeOf(value);
  if (mode !== undefined) return mode;
  ctx.addIssue({
    code: 'custom',
    message: `must be sandbox, upstream, or a comma list of distinct carriers among ${CARRIERS.join(', ')} (e.g. bluebubbles,smsgate)`,
  });
  return z.NEVER;
});

const ConfigFields = z.object({
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
  /** sandbox, upstream, or the carriers textrelay delivers through itself (bluebubbles, twilio, smsgate, in a comma list). */
  TEXTRELAY_TRANSPORT: TransportSetting.default('sandbox'),
  TEXTRELAY_PUBLIC_URL: Url.optional(),
  /** Where the media URLs textrelay hands out point (another origin than the inbox's, e.g. https://media.example.com); TEXTRELAY_PUBLIC_URL when unset. */
  TEXTRELAY_MEDIA_URL: Url.optional(),
  TEXTRELAY_SANDBOX_STEP_MS: z.coerce.number().int().min(0).default(1000),
  TEXTRELAY_INGEST_SECRET: z.string().min(1).optional(),
  TEXTRELAY_UPSTREAM_URL: Url.optional(),
  TEXTRELAY_UPSTREAM_KEY_ID: z.string().min(1).optional(),
  TEXTRELAY_UPSTREAM_SECRET: z.string().min(1).optional(),
  TEXTRELAY_WEBHOOK_RETRY_SCHEDULE: Seconds.default('5,30,120,600,1800,3600,10800,21600,43200,86400'),
  TEXTRELAY_BLUEBUBBLES_URL: Url.optional(),
  TEXTRELAY_BLUEBUBBLES_PASSWORD: z.string().min(1).optional(),
  /** true: at start, remove the webhook another textrelay registered on the same Mac (else it is kept and a warning says so). */
  TEXTRELAY_BLUEBUBBLES_TAKE_OVER: Flag.default(false),
  /** Checked here so a mistyped SID stops the start naming this setting, not the first Twilio request. */
  TEXTRELAY_TWILIO_ACCOUNT_SID: z
    .string()
    .regex(/^AC[0-9a-fA-F]{32}$/, { message: 'must be the Account SID from the Twilio console: AC and 32 hexadecimal digits' })
    .optional(),
  TEXTRELAY_TWILIO_AUTH_TOKEN: z.string().min(1).optional(),
  /** Every Twilio REST call goes to this base (a test points it at a fake Twilio). */
  TEXTRELAY_TWILIO_API_URL: Url.default('https://api.twilio.com'),
  /** The SMSGate phone's local server (http://<phone>:8080) or a cloud or private server's …/3rdparty/v1. */
  TEXTRELAY_SMSGATE_URL: Url.optional(),
  TEXTRELAY_SMSGATE_USERNAME: z.string().min(1).optional(),
  TEXTRELAY_SMSGATE_PASSWORD: z.string().min(1).optional(),
  /** The phone's webhook signing key: every webhook's X-Signature is checked against it. */
  TEXTRELAY_SMSGATE_SIGNING_KEY: z.string().min(1).optional(),
  /** Which phone sends, where the server has several (cloud or private server); the only one otherwise. */
  TEXTRELAY_SMSGATE_DEVICE_ID: z.string().min(1).max(21, 'must be at most 21 characters (an SMSGate device id)').optional(),
  /** Pauses between a carrier's hand-over attempts that failed for a passing reason (down, 429, 5xx); after the last, ERROR. */
  TEXTRELAY_CARRIER_RETRY_SCHEDULE: Seconds.default('1,5,15,60,120,300'),
  /** How often a carrier that drops events (BlueBubbles) is read back for what textrelay missed. */
  TEXTRELAY_CARRIER_READBACK_S: z.coerce.number().min(0.1).default(300),
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
  /** Rows an account's other API writes (contacts, webhooks, groups, typing, media) may touch per minute; 0 turns the limit off. */
  TEXTRELAY_WRITE_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).default(1200),
  /** Lookups (evaluate-service) an account may have its line's carrier answer per minute; 0 turns the limit off. */
  TEXTRELAY_LOOKUP_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).default(60),
  /** URLs an account may list per webhook type; one more is refused with 400. */
  TEXTRELAY_WEBHOOK_URLS_PER_TYPE: z.coerce.number().int().min(1).default(10),
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
});

export const ConfigSchema = ConfigFields.transform((config) => ({
  ...config,
  TEXTRELAY_ALLOW_PRIVATE_CALLBACKS: config.TEXTRELAY_ALLOW_PRIVATE_CALLBACKS ?? config.TEXTRELAY_TRANSPORT === 'sandbox',
})).superRefine((config, ctx) => {
  const database = databaseSetting(config);
  if (looksLikeUrl(database.value) && !POSTGRES_SCHEME.test(database.value)) {
    ctx.addIssue({
      code: 'custom',
      path: [database.key],
      message: `must be a postgres:// URL or a SQLite file path (got ${withoutCredentials(database.value)})`,
    });
  }
  refuseIncompleteCarriers(config, ctx);
  if (config.TEXTRELAY_TRANSPORT !== 'upstream') return;
  // Without these the relay could not send, or its provider could not call back: refuse to start rather than fail every message.
  for (const key of ['TEXTRELAY_UPSTREAM_URL', 'TEXTRELAY_UPSTREAM_KEY_ID', 'TEXTRELAY_UPSTREAM_SECRET', 'TEXTRELAY_PUBLIC_URL'] as const) {
    if (config[key] === undefined)
      ctx.addIssue({ code: 'custom', path: [key], message: 'is required when TEXTRELAY_TRANSPORT is upstream' });
  }
  if (config.TEXTRELAY_UPSTREAM_URL === undefined) return;
  const { hostname } = new URL(config.TEXTRELAY_UPSTREAM_URL);
  const literal = classifyLiteralHost(hostname);
  const refusal = literal && refusalOf(literal, outboundPolicyOf(config));
  if (refusal) {
    const setting = ALLOWING_SETTING[literal as keyof typeof ALLOWING_SETTING];
    ctx.addIssue({
      code: 'custom',
      path: ['TEXTRELAY_UPSTREAM_URL'],
      message: `is ${hostname}, ${refusal}: set ${setting}=true to relay to it`,
    });
  }
});

export type Config = z.output<typeof ConfigSchema>;

/** Each configured carrier's settings are all there, and its server is not on a link-local or metadata address. */
function refuseIncompleteCarriers(config: Config, ctx: z.RefinementCtx): void {
  const carriers = carriersOf(config.TEXTRELAY_TRANSPORT);
  for (const key of new Set(carriers.flatMap((carrier) => CARRIER_SETTINGS[carrier]))) {
    if (config[key] === undefined)
      ctx.addIssue({ code: 'custom', path: [key], message: `is required when TEXTRELAY_TRANSPORT is ${config.TEXTRELAY_TRANSPORT}` });
  }
  for (const carrier of carriers) {
    const key = CARRIER_URL[carrier];
    const value = config[key];
    if (value === undefined) continue;
    const { hostname } = new URL(value);
    const literal = classifyLiteralHost(hostname);
    const refusal = literal && refusalOf(literal, carrierPolicyOf(config));
    if (refusal) ctx.addIssue({ code: 'custom', path: [key], message: `is ${hostname}, ${refusal}: a carrier may not be reached there` });
  }
}

/**
 * Which addresses a carrier's server may be on. The operator set its URL, so loopback and the LAN
 * are allowed (a Mac on the desk); link-local and metadata addresses stay refused, as for callbacks.
 */
export function carrierPolicyOf(config: Pick<Config, 'TEXTRELAY_ALLOW_LINK_LOCAL_CALLBACKS'>): OutboundPolicy {
  return { allowPrivate: true, allowLinkLocal: config.TEXTRELAY_ALLOW_LINK_LOCAL_CALLBACKS };
}

/** The URL of a carrier's server (TEXTRELAY_BLUEBUBBLES_URL, TEXTRELAY_TWILIO_API_URL), when configured. */
export function carrierUrlOf(config: Config, carrier: CarrierName): string | undefined {
  return config[CARRIER_URL[carrier]];
}

/** TEXTRELAY_CARRIER_RETRY_SCHEDULE in milliseconds. */
export function carrierRetryDelaysMs(config: Pick<Config, 'TEXTRELAY_CARRIER_RETRY_SCHEDULE'>): number[] {
  return config.TEXTRELAY_CARRIER_RETRY_SCHEDULE.split(',').map((seconds) => Math.round(Number(seconds) * 1000));
}

const POSTGRES_SCHEME = /^postgres(ql)?:\/\//i;

/**
 * A scheme and a slash (`mysql://`, `postgresql:/db`), a scheme's name before `//` without its
 * colon (`postgres//u:p@h`), or credentials (`u:p@`): meant as a URL, never as a file to create.
 */
const URL_LIKE = [/^[a-z][a-z0-9+.-]+:\//i, /^postgres(ql)?(:|\/\/)/i, /^[a-z][a-z0-9+.-]*\/\/[^/]*@/i, /^[^/]*:[^/]*@/];

function looksLikeUrl(value: string): boolean {
  return URL_LIKE.some((pattern) => pattern.test(value));
}

/** The value with the password of any `user:password@` replaced by `***`, for a message or a log line. */
export function withoutCredentials(value: string): string {
  // Up to the last @: a password may hold any character, typed unencoded.
  const at = value.lastIndexOf('@');
  if (at < 0) return value;
  const slashes = value.lastIndexOf('//', at);
  const userStart = slashes < 0 ? 0 : slashes + 2;
  const colon = value.indexOf(':', userStart);
  return colon < 0 || colon > at ? value : `${value.slice(0, colon)}:***${value.slice(at)}`;
}

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

/** The settings that hold secrets, which may also be given as a file's contents (NAME_FILE), as container secrets are mounted. */
export const FILE_SETTINGS = [
  'TEXTRELAY_DATABASE_URL',
  'TEXTRELAY_UPSTREAM_KEY_ID',
  'TEXTRELAY_UPSTREAM_SECRET',
  'TEXTRELAY_INGEST_SECRET',
  'TEXTRELAY_METRICS_TOKEN',
  'TEXTRELAY_TWILIO_AUTH_TOKEN',
  'TEXTRELAY_BLUEBUBBLES_PASSWORD',
  'TEXTRELAY_SMSGATE_PASSWORD',
  'TEXTRELAY_SMSGATE_SIGNING_KEY',
] as const;

/** Each NAME_FILE of `settings` read into NAME, without its trailing newline; what cannot be read is a problem naming it. */
function readSettingFiles(settings: Record<string, string>, problems: string[]): void {
  for (const key of FILE_SETTINGS) {
    const file = settings[`${key}_FILE`];
    if (file === undefined) continue;
    if (settings[key] !== undefined) {
      problems.push(`${key}_FILE: give ${key} or ${key}_FILE, not both`);
      continue;
    }
    try {
      const value = readFileSync(file, 'utf8').replace(/\r?\n$/, '');
      if (value === '') problems.push(`${key}_FILE: ${file} is empty`);
      else settings[key] = value;
    } catch (error) {
      problems.push(`${key}_FILE: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
    }
  }
}

/** Parses env (and flag overrides, named like the variables); throws ConfigError listing every bad value. */
export function loadConfig(env: Record<string, string | undefined>, overrides: Record<string, string | undefined> = {}): Config {
  const merged: Record<string, string> = {};
  const problems: string[] = [];
  for (const source of [env, overrides]) {
    for (const [key, value] of Object.entries(source)) {
      // An empty variable means "not set", as in most shells' `VAR= cmd`.
      if (value !== undefined && value !== '') merged[key] = value;
    }
    // Files are read with the environment, so a flag still wins over a setting given as a file.
    if (source === env) readSettingFiles(merged, problems);
  }
  const result = ConfigSchema.safeParse(merged);
  if (!result.success) problems.push(...result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`));
  if (problems.length > 0 || !result.success) {
    // One problem in one line; several, one a line.
    throw new ConfigError(
      problems.length === 1
        ? `Invalid configuration: ${problems[0]}`
        : `Invalid configuration:\n${problems.map((line) => `  ${line}`).join('\n')}`,
    );
  }
  return result.data;
}
