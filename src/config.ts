import { z } from 'zod';
import { isValidTimeZone } from './domain/dates.ts';
import { isHttpUrl } from './domain/media-url.ts';

const Url = z.string().refine(isHttpUrl, { message: 'must be an absolute http(s) URL' });
const Flag = z.enum(['true', 'false', '1', '0']).transform((value) => value === 'true' || value === '1');
const Port = z.coerce.number().int().min(0).max(65535);

/**
 * Every setting, from the environment with command-line flags on top, parsed once at start.
 * A bad value stops the process with a message naming the variable, not a crash later.
 */
export const ConfigSchema = z.object({
  PORT: Port.default(3000),
  /** Loopback by default: a development gateway should not be reachable from the network by accident. */
  HOST: z.string().min(1).default('127.0.0.1'),
  TEXTRELAY_DB: z.string().min(1).default('./data/textrelay.db'),
  TEXTRELAY_TRANSPORT: z.enum(['sandbox', 'upstream']).default('sandbox'),
  TEXTRELAY_PUBLIC_URL: Url.optional(),
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
  TEXTRELAY_ALLOW_PRIVATE_CALLBACKS: Flag.default(true),
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
}).superRefine((config, ctx) => {
  if (config.TEXTRELAY_TRANSPORT !== 'upstream') return;
  // Without these the relay could not send, or its provider could not call back: refuse to start rather than fail every message.
  for (const key of ['TEXTRELAY_UPSTREAM_URL', 'TEXTRELAY_UPSTREAM_KEY_ID', 'TEXTRELAY_UPSTREAM_SECRET', 'TEXTRELAY_PUBLIC_URL'] as const) {
    if (config[key] === undefined) ctx.addIssue({ code: 'custom', path: [key], message: 'is required when TEXTRELAY_TRANSPORT is upstream' });
  }
});

export type Config = z.output<typeof ConfigSchema>;

export class ConfigError extends Error {}

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
