import { type Config, loadConfig } from '../config.ts';
import { VERSION } from '../version.ts';

/**
 * The CLI's commands described once: `textrelay --help`, `textrelay help X` and `textrelay X --help`
 * print from here, and a flag a command does not list here is refused as unknown.
 */
type CommandHelp = {
  summary: string;
  usage: readonly string[];
  /** `--name VALUE` and what it does; the name is what the command accepts. */
  flags: readonly (readonly [string, string])[];
  /** The settings the command reads (flags named alike win over them). */
  env: readonly (keyof Config)[];
};

const DB = ['--db FILE|URL', 'the SQLite file, or a postgres:// URL (TEXTRELAY_DB, TEXTRELAY_DATABASE_URL)'] as const;
/** The settings that choose and tune the database, read by every command. */
const DATABASE_SETTINGS = [
  'TEXTRELAY_DB',
  'TEXTRELAY_DATABASE_URL',
  'TEXTRELAY_DATABASE_POOL_SIZE',
  'TEXTRELAY_DATABASE_STATEMENT_TIMEOUT_MS',
] as const;
const JSON_FLAG = ['--json', 'print JSON instead of lines for people'] as const;

// Every setting, described: a new one in the config schema does not compile until it is described here.
const SETTINGS: Record<keyof Config, string> = {
  PORT: 'port to listen on',
  HOST: 'address to listen on',
  TEXTRELAY_DB: 'the SQLite file',
  TEXTRELAY_DATABASE_URL: 'a postgres:// URL selects PostgreSQL (shared by many instances); wins over TEXTRELAY_DB',
  TEXTRELAY_DATABASE_POOL_SIZE: 'PostgreSQL connections this instance holds',
  TEXTRELAY_DATABASE_STATEMENT_TIMEOUT_MS: 'PostgreSQL cancels a statement running longer, 0 never',
  TEXTRELAY_INTEGRITY_CHECK_MAX_MB: 'check the file for damage at start when at most this large, 0 never',
  TEXTRELAY_KEEP_ALIVE_TIMEOUT_MS: 'close idle keep-alive connections after this long',
  TEXTRELAY_MAX_CONNECTIONS: 'open connections at most; more are closed at once',
  TEXTRELAY_TRANSPORT: 'sandbox, upstream, or carriers in a comma list: bluebubbles, twilio, smsgate (first: default of new lines)',
  TEXTRELAY_PUBLIC_URL: 'the URL the upstream provider or the carriers call back (required for upstream and carriers)',
  TEXTRELAY_MEDIA_URL: 'the base URL of the media URLs handed out (another origin than the inbox), default TEXTRELAY_PUBLIC_URL',
  TEXTRELAY_SANDBOX_STEP_MS: "time between the sandbox's status steps",
  TEXTRELAY_INGEST_SECRET: 'whsec_ secret(s) that sign callbacks posted to /webhooks/*',
  TEXTRELAY_UPSTREAM_URL: "the provider's API (required for upstream)",
  TEXTRELAY_UPSTREAM_KEY_ID: "the provider's key id (required for upstream)",
  TEXTRELAY_UPSTREAM_SECRET: "the provider's secret (required for upstream)",
  TEXTRELAY_WEBHOOK_RETRY_SCHEDULE: 'seconds between webhook attempts, comma-separated',
  TEXTRELAY_BLUEBUBBLES_URL: 'the BlueBubbles server (required for bluebubbles)',
  TEXTRELAY_BLUEBUBBLES_PASSWORD: "the BlueBubbles server's password (required for bluebubbles)",
  TEXTRELAY_BLUEBUBBLES_TAKE_OVER: "1: at start, remove another textrelay's webhook found on the same Mac (default: keep it and warn)",
  TEXTRELAY_TWILIO_ACCOUNT_SID: 'the Twilio Account SID, AC… (required for twilio)',
  TEXTRELAY_TWILIO_AUTH_TOKEN: "the Twilio account's Auth Token (required for twilio)",
  TEXTRELAY_TWILIO_API_URL: 'where Twilio REST calls go (default https://api.twilio.com)',
  TEXTRELAY_SMSGATE_URL: "the SMSGate phone's local server http://<phone>:8080, or a server's …/3rdparty/v1 (required for smsgate)",
  TEXTRELAY_SMSGATE_USERNAME: "the SMSGate app's API username (required for smsgate)",
  TEXTRELAY_SMSGATE_PASSWORD: "the SMSGate app's API password (required for smsgate)",
  TEXTRELAY_SMSGATE_SIGNING_KEY: "the SMSGate app's webhook signing key (required for smsgate)",
  TEXTRELAY_SMSGATE_DEVICE_ID: 'which SMSGate phone sends, where the server has several',
  TEXTRELAY_CARRIER_RETRY_SCHEDULE: "seconds between a carrier's hand-over attempts, comma-separated; then ERROR",
  TEXTRELAY_CARRIER_READBACK_S: 'seconds between read-backs of what a carrier (BlueBubbles, Twilio, SMSGate) did not tell',
  TEXTRELAY_DELIVERY_RETENTION_DAYS: 'days finished webhook deliveries stay in the log, 0 for ever',
  TEXTRELAY_UNROUTED_RETENTION_DAYS: 'days an inbound message for a line no account owns is kept, 0 for ever',
  TEXTRELAY_MEDIA_RETENTION_DAYS: "days an uploaded file is kept (a group's current photo stays), 0 for ever",
  TEXTRELAY_MEDIA_QUOTA_MB: 'megabytes of stored files per account; more answers 403, 0 for no limit',
  TEXTRELAY_CONTACTS_QUOTA: 'live contacts per account created through the API; more answers 403, 0 for no limit',
  TEXTRELAY_EVENT_RETENTION_DAYS: 'days an event stays in the log that /api/v2/events resumes from, 0 for ever',
  TEXTRELAY_EVENT_STREAMS_PER_ACCOUNT: 'open /api/v2/events streams per account; one more answers 429',
  TEXTRELAY_ORPHAN_EVENT_RETENTION_DAYS: 'days a status event for an unknown handle waits for its message, 0 for ever',
  TEXTRELAY_ALLOW_PRIVATE_CALLBACKS:
    'allow outbound requests to private and loopback addresses (default: true with sandbox, false with upstream)',
  TEXTRELAY_ALLOW_LINK_LOCAL_CALLBACKS: 'allow outbound requests to link-local and cloud-metadata addresses',
  TEXTRELAY_DISPLAY_TZ: "time zone of contacts' display dates",
  TEXTRELAY_RATE_LIMIT_PER_MINUTE: 'sends per account per minute, 0 for no limit',
  TEXTRELAY_WRITE_RATE_LIMIT_PER_MINUTE: 'rows other API writes may touch per account per minute, 0 for no limit',
  TEXTRELAY_LOOKUP_RATE_LIMIT_PER_MINUTE: "lookups an account may have its line's carrier answer per minute, 0 for no limit",
  TEXTRELAY_WEBHOOK_URLS_PER_TYPE: 'URLs an account may list per webhook type',
  TEXTRELAY_INBOX_LOGIN_MAX_FAILURES: 'failed inbox sign-ins per key id and per client address before 429, 0 for no limit',
  TEXTRELAY_INBOX_LOGIN_WINDOW_SECONDS: 'the window those failures are counted in, and the lock-out lasts',
  TEXTRELAY_TRUST_PROXY: 'believe X-Forwarded-For and X-Forwarded-Proto from a reverse proxy',
  TEXTRELAY_NUMBERS_PER_ACCOUNT: 'service numbers of a new account',
  TEXTRELAY_METRICS: 'serve /metrics (false answers 404)',
  TEXTRELAY_METRICS_TOKEN: 'bearer token /metrics requires, when set',
  LOG_LEVEL: 'fatal, error, warn, info, debug, trace or silent',
};

export const COMMANDS = {
  serve: {
    summary: 'Run the HTTP API, the transport and the webhook dispatcher',
    usage: ['textrelay serve [--port N] [--host H] [--db FILE|URL] [--transport sandbox|upstream|CARRIER[,CARRIER…]]'],
    flags: [
      ['--port N', 'port to listen on, 0 for any free one (PORT)'],
      ['--host H', 'address to listen on (HOST)'],
      DB,
      [
        '--transport NAME',
        'sandbox (simulated network), upstream (a real provider), or carriers in a comma list: bluebubbles, twilio, smsgate (TEXTRELAY_TRANSPORT)',
      ],
    ],
    // serve reads every setting.
    env: Object.keys(SETTINGS) as (keyof Config)[],
  },
  migrate: {
    summary: 'Create the database file or bring it to the current schema',
    usage: ['textrelay migrate [--db FILE|URL]'],
    flags: [DB],
    env: [...DATABASE_SETTINGS, 'TEXTRELAY_INTEGRITY_CHECK_MAX_MB'],
  },
  'migrate-data': {
    summary: 'Copy a SQLite database into an empty PostgreSQL database (stop the server first)',
    usage: ['textrelay migrate-data --from FILE --to postgres://user:password@host:port/database [--json]'],
    flags: [
      ['--from FILE', 'the SQLite file to copy (checked and migrated first, as serve would)'],
      ['--to URL', 'the PostgreSQL database to copy into: migrated first, refused unless empty'],
      JSON_FLAG,
    ],
    env: ['TEXTRELAY_INTEGRITY_CHECK_MAX_MB'],
  },
  accounts: {
    summary: 'Create accounts, list them, edit their lines, rotate their API secret, give them a provider account',
    usage: [
      'textrelay accounts create --email E [--plan blue|sapphire] [--numbers K|+1…,+1…] [--carrier bluebubbles|twilio|smsgate] [--receive-webhook URL] [--upstream-key-id K --upstream-secret-file FILE] [--db FILE|URL] [--json]',
      'textrelay accounts list [--db FILE|URL] [--json]',
      'textrelay accounts lines list --email E [--db FILE|URL] [--json]',
      'textrelay accounts lines add --email E NUMBER[,NUMBER…] [--carrier bluebubbles|twilio|smsgate] [--db FILE|URL] [--json]',
      'textrelay accounts lines remove --email E NUMBER[,NUMBER…] [--force] [--db FILE|URL] [--json]',
      'textrelay accounts rotate-secret --email E [--db FILE|URL] [--json]',
      'textrelay accounts upstream set --email E --key-id K --secret-file FILE [--db FILE|URL] [--json]',
    ],
    flags: [
      ['--email E', "the account's email, its name in every command"],
      ['--plan NAME', 'blue (default) or sapphire (group messages)'],
      [
        '--numbers K',
        "how many sandbox numbers to give it (TEXTRELAY_NUMBERS_PER_ACCOUNT), or its lines as comma-separated E.164 numbers (a relay: the provider's real numbers)",
      ],
      [
        '--carrier NAME',
        'the carrier delivering the lines given (bluebubbles, smsgate: one line at most); default: the first TEXTRELAY_TRANSPORT names',
      ],
      ['--receive-webhook URL', 'where its inbound messages are posted'],
      [
        '--force',
        'lines remove: retire a line that carries conversations (its people are pinned anew, its groups move to a line kept, its history stays)',
      ],
      [
        '--upstream-key-id K',
        "relay mode: the key id of the account's own provider account (else the relay's, TEXTRELAY_UPSTREAM_KEY_ID); one account per provider account",
      ],
      [
        '--upstream-secret-file FILE',
        "a file holding that provider account's API secret (stored retrievable: the relay presents it); never on the command line",
      ],
      ['--key-id K', 'accounts upstream set: the key id of the provider account the account moves to'],
      ['--secret-file FILE', "accounts upstream set: a file holding that provider account's API secret"],
      DB,
      JSON_FLAG,
    ],
    env: [
      ...DATABASE_SETTINGS,
      'TEXTRELAY_NUMBERS_PER_ACCOUNT',
      'TEXTRELAY_TRANSPORT',
      'TEXTRELAY_UPSTREAM_KEY_ID',
      'TEXTRELAY_UPSTREAM_SECRET',
    ],
  },
  inbound: {
    summary: 'Sandbox: an end user texts an account (as POST /sandbox/inbound)',
    usage: ['textrelay inbound --email E --from NUMBER --content TEXT [--group-id ID] [--media-url URL] [--db FILE|URL] [--json]'],
    flags: [
      ['--email E', 'the account written to'],
      ['--from NUMBER', "the end user's phone number"],
      ['--content TEXT', 'the message text'],
      ['--group-id ID', 'write in this group of the account (the sender must be a member)'],
      ['--media-url URL', 'an attachment'],
      DB,
      JSON_FLAG,
    ],
    env: [...DATABASE_SETTINGS, 'TEXTRELAY_TRANSPORT'],
  },
  webhooks: {
    summary: "List every account's webhook deliveries, send given-up ones again, forget old ones",
    usage: [
      'textrelay webhooks list [--failed] [--limit N] [--db FILE|URL] [--json]',
      'textrelay webhooks replay --id WEBHOOK_ID | --failed-since TIME [--db FILE|URL] [--json]',
      'textrelay webhooks prune --before TIME [--db FILE|URL] [--json]',
    ],
    flags: [
      ['--failed', 'list only the deliveries given up'],
      ['--limit N', 'list at most N, newest first (default 100)'],
      ['--id WEBHOOK_ID', 'replay this delivery (same webhook-id, fresh retry schedule)'],
      [
        '--failed-since TIME',
        'replay every delivery given up since TIME (2026-11-23T09:00:00Z, "2026-11-23 09:00:00" UTC, or 30m, 2h, 1d ago)',
      ],
      ['--before TIME', 'delete the deliveries delivered or given up before TIME, with their attempts (a time, or 30d ago)'],
      DB,
      JSON_FLAG,
    ],
    env: [...DATABASE_SETTINGS],
  },
  tail: {
    summary: 'Follow status events, inbound messages and webhook attempts as a running server writes them',
    usage: ['textrelay tail [--since TIME] [--db FILE|URL] [--json]'],
    flags: [
      ['--since TIME', 'first print what happened since TIME (2026-11-23T09:00:00Z, or 30m, 2h, 1d ago); default: only new events'],
      DB,
      ['--json', 'one JSON object per line instead of lines for people'],
    ],
    env: [...DATABASE_SETTINGS],
  },
  status: {
    summary:
      "Messages by status, outbox depth, failing webhook destinations, unrouted inbound messages, and each carrier (probed now, with the server's sends and events)",
    usage: ['textrelay status [--db FILE|URL] [--json]'],
    flags: [DB, JSON_FLAG],
    env: [...DATABASE_SETTINGS, 'TEXTRELAY_TRANSPORT'],
  },
  healthcheck: {
    summary: 'Ask the server on this machine whether it is ready (GET /readyz): exit 0 if so, 1 if not, as a container health check',
    usage: ['textrelay healthcheck [--port N] [--host H]'],
    flags: [
      ['--port N', 'the port the server listens on (PORT)'],
      ['--host H', 'the address it listens on; 0.0.0.0 and :: are asked on loopback (HOST)'],
    ],
    env: ['PORT', 'HOST'],
  },
} as const satisfies Record<string, CommandHelp>;

export type CommandName = keyof typeof COMMANDS;

export function isCommand(name: string | undefined): name is CommandName {
  return name !== undefined && Object.hasOwn(COMMANDS, name);
}

function flagName(flag: string): string {
  return flag.split(' ')[0]!.slice(2);
}

/** The flags given that `command` does not take (`--help` is taken by all). */
export function unexpectedFlags(command: CommandName, given: readonly string[]): string[] {
  const accepted = new Set<string>(COMMANDS[command].flags.map(([flag]) => flagName(flag)));
  return given.filter((name) => name !== 'help' && !accepted.has(name));
}

function table(rows: readonly (readonly [string, string])[]): string[] {
  const width = Math.max(...rows.map(([left]) => left.length));
  return rows.map(([left, right]) => `  ${left.padEnd(width)}  ${right}`);
}

export function overview(): string {
  const commands = Object.entries(COMMANDS).map(([name, help]) => [name, help.summary] as const);
  return [
    `textrelay ${VERSION}: self-hosted messaging gateway`,
    '',
    'Usage: textrelay COMMAND [flags]',
    '',
    'Commands:',
    ...table(commands),
    '',
    'Run `textrelay help COMMAND` (or `textrelay COMMAND --help`) for its flags and settings.',
    'Settings come from the environment; a flag named alike wins over it.',
    '',
  ].join('\n');
}

function describeSetting(defaults: Config, name: keyof Config): string {
  const value = defaults[name];
  const fallback = value === undefined ? '' : ` (default ${String(value)})`;
  return `${SETTINGS[name]}${fallback}`;
}

/** What a usage error prints under its message: the command's usage lines, and where the rest is. */
export function commandUsage(command: CommandName): string {
  return [
    'Usage:',
    ...COMMANDS[command].usage.map((line) => `  ${line}`),
    '',
    `Run \`textrelay help ${command}\` for its flags and settings.`,
    '',
  ].join('\n');
}

export function commandHelp(command: CommandName): string {
  const help: CommandHelp = COMMANDS[command];
  // Defaults read from the schema that parses the settings, so this text cannot drift from it.
  const defaults = loadConfig({});
  return [
    `${help.summary}.`,
    '',
    'Usage:',
    ...help.usage.map((line) => `  ${line}`),
    '',
    'Flags:',
    ...table([...help.flags, ['-h, --help', 'show this help']]),
    '',
    'Environment:',
    ...table(help.env.map((name) => [name, describeSetting(defaults, name)] as const)),
    '',
  ].join('\n');
}
