import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.ts';

/** The error loadConfig throws for this environment (fails the test if it does not throw). */
function configError(env: Record<string, string | undefined>, overrides: Record<string, string | undefined> = {}): ConfigError {
  try {
    loadConfig(env, overrides);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify({ env, overrides })}`);
}

/** `name` as a whole word, so that e.g. PORT is not found inside TEXTRELAY_TRANSPORT. */
function namesVariable(message: string, name: string): boolean {
  return new RegExp(`(^|[^A-Z_])${name}([^A-Z_]|$)`, 'm').test(message);
}

describe('loadConfig defaults', () => {
  it('gives the documented defaults for an empty environment', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      PORT: 3000,
      HOST: '127.0.0.1',
      TEXTRELAY_DB: './data/textrelay.db',
      TEXTRELAY_TRANSPORT: 'sandbox',
      TEXTRELAY_SANDBOX_STEP_MS: 1000,
      TEXTRELAY_ALLOW_PRIVATE_CALLBACKS: true,
      TEXTRELAY_DISPLAY_TZ: 'UTC',
      TEXTRELAY_RATE_LIMIT_PER_MINUTE: 6000,
      TEXTRELAY_DELIVERY_RETENTION_DAYS: 30,
      TEXTRELAY_ORPHAN_EVENT_RETENTION_DAYS: 7,
      TEXTRELAY_WEBHOOK_RETRY_SCHEDULE: '5,30,120,600,1800,3600,10800,21600,43200,86400',
    });
    expect(config.TEXTRELAY_PUBLIC_URL).toBeUndefined();
    expect(config.TEXTRELAY_INGEST_SECRET).toBeUndefined();
  });

  it('ignores variables it does not know (the real process.env is full of them)', () => {
    const config = loadConfig({ PATH: '/usr/bin', HOME: '/root', SOMETHING_ELSE: 'x' });
    expect(config.PORT).toBe(3000);
    expect(config).not.toHaveProperty('PATH');
  });

  it('accepts the real process environment of this test run', () => {
    const env = { ...process.env };
    for (const key of Object.keys(env))
      if (key === 'PORT' || key === 'HOST' || key === 'LOG_LEVEL' || key.startsWith('TEXTRELAY_')) delete env[key];
    expect(() => loadConfig(env)).not.toThrow();
  });
});

/** Upstream mode needs its provider and credentials (checked in test/delivery/upstream.test.ts). */
const UPSTREAM_CREDENTIALS = {
  TEXTRELAY_UPSTREAM_URL: 'https://provider.example.com',
  TEXTRELAY_UPSTREAM_KEY_ID: 'key_upstream',
  TEXTRELAY_UPSTREAM_SECRET: 'sk_upstream',
};

describe('loadConfig parses environment values', () => {
  it('turns numbers and flags into their types', () => {
    const config = loadConfig({
      PORT: '8080',
      HOST: '0.0.0.0',
      TEXTRELAY_DB: '/tmp/x.db',
      TEXTRELAY_TRANSPORT: 'upstream',
      TEXTRELAY_SANDBOX_STEP_MS: '25',
      TEXTRELAY_ALLOW_PRIVATE_CALLBACKS: 'false',
      TEXTRELAY_DISPLAY_TZ: 'Europe/Paris',
      TEXTRELAY_RATE_LIMIT_PER_MINUTE: '0',
      TEXTRELAY_WEBHOOK_RETRY_SCHEDULE: '1,2.5,10',
      TEXTRELAY_PUBLIC_URL: 'https://abc123.ngrok.app',
      TEXTRELAY_INGEST_SECRET: 'ingest-secret',
      ...UPSTREAM_CREDENTIALS,
      LOG_LEVEL: 'debug',
    });
    expect(config).toMatchObject({
      PORT: 8080,
      HOST: '0.0.0.0',
      TEXTRELAY_DB: '/tmp/x.db',
      TEXTRELAY_TRANSPORT: 'upstream',
      TEXTRELAY_SANDBOX_STEP_MS: 25,
      TEXTRELAY_ALLOW_PRIVATE_CALLBACKS: false,
      TEXTRELAY_DISPLAY_TZ: 'Europe/Paris',
      TEXTRELAY_RATE_LIMIT_PER_MINUTE: 0,
      TEXTRELAY_WEBHOOK_RETRY_SCHEDULE: '1,2.5,10',
      TEXTRELAY_PUBLIC_URL: 'https://abc123.ngrok.app',
      TEXTRELAY_INGEST_SECRET: 'ingest-secret',
      LOG_LEVEL: 'debug',
    });
    expect(typeof config.PORT).toBe('number');
  });

  it.each([
    ['true', true],
    ['1', true],
    ['false', false],
    ['0', false],
  ])('TEXTRELAY_ALLOW_PRIVATE_CALLBACKS %j is %s', (raw, expected) => {
    expect(loadConfig({ TEXTRELAY_ALLOW_PRIVATE_CALLBACKS: raw }).TEXTRELAY_ALLOW_PRIVATE_CALLBACKS).toBe(expected);
  });

  it('accepts PORT 0 (pick a free port) and the top of the range', () => {
    expect(loadConfig({ PORT: '0' }).PORT).toBe(0);
    expect(loadConfig({ PORT: '65535' }).PORT).toBe(65535);
  });

  it('does not modify the objects it is given', () => {
    const env = { PORT: '8080', TEXTRELAY_DB: '' };
    const overrides = { PORT: undefined, HOST: '::1' };
    loadConfig(env, overrides);
    expect(env).toEqual({ PORT: '8080', TEXTRELAY_DB: '' });
    expect(overrides).toEqual({ PORT: undefined, HOST: '::1' });
  });
});

describe('loadConfig overrides (command-line flags)', () => {
  it('win over the environment', () => {
    const config = loadConfig(
      { PORT: '8080', TEXTRELAY_DB: '/env.db', TEXTRELAY_TRANSPORT: 'upstream' },
      { PORT: '9090', TEXTRELAY_DB: '/flag.db', TEXTRELAY_TRANSPORT: 'sandbox' },
    );
    expect(config).toMatchObject({ PORT: 9090, TEXTRELAY_DB: '/flag.db', TEXTRELAY_TRANSPORT: 'sandbox' });
  });

  it('an undefined override (flag not given) keeps the environment value', () => {
    const config = loadConfig(
      {
        PORT: '8080',
        HOST: '0.0.0.0',
        TEXTRELAY_DB: '/env.db',
        TEXTRELAY_TRANSPORT: 'upstream',
        TEXTRELAY_PUBLIC_URL: 'https://abc123.ngrok.app',
        ...UPSTREAM_CREDENTIALS,
      },
      { PORT: undefined, HOST: undefined, TEXTRELAY_DB: undefined, TEXTRELAY_TRANSPORT: undefined },
    );
    expect(config).toMatchObject({ PORT: 8080, HOST: '0.0.0.0', TEXTRELAY_DB: '/env.db', TEXTRELAY_TRANSPORT: 'upstream' });
  });

  it('an undefined override with nothing in the environment gives the default', () => {
    expect(loadConfig({}, { PORT: undefined, TEXTRELAY_DB: undefined })).toMatchObject({ PORT: 3000, TEXTRELAY_DB: './data/textrelay.db' });
  });

  it('a bad override is refused even when the environment value is good, naming the variable', () => {
    const error = configError({ PORT: '8080' }, { PORT: 'abc' });
    expect(namesVariable(error.message, 'PORT')).toBe(true);
  });
});

describe('outbound address policy settings', () => {
  const upstream = { TEXTRELAY_TRANSPORT: 'upstream', TEXTRELAY_PUBLIC_URL: 'https://relay.example.com', ...UPSTREAM_CREDENTIALS };

  it('private and loopback addresses are allowed by default with the sandbox, refused with upstream', () => {
    expect(loadConfig({}).TEXTRELAY_ALLOW_PRIVATE_CALLBACKS).toBe(true);
    expect(loadConfig(upstream).TEXTRELAY_ALLOW_PRIVATE_CALLBACKS).toBe(false);
    expect(loadConfig({ ...upstream, TEXTRELAY_ALLOW_PRIVATE_CALLBACKS: '' }).TEXTRELAY_ALLOW_PRIVATE_CALLBACKS, 'empty is unset').toBe(
      false,
    );
  });

  it('TEXTRELAY_ALLOW_PRIVATE_CALLBACKS, when set, wins over the mode', () => {
    expect(loadConfig({ ...upstream, TEXTRELAY_ALLOW_PRIVATE_CALLBACKS: 'true' }).TEXTRELAY_ALLOW_PRIVATE_CALLBACKS).toBe(true);
    expect(loadConfig({ TEXTRELAY_ALLOW_PRIVATE_CALLBACKS: 'false' }).TEXTRELAY_ALLOW_PRIVATE_CALLBACKS).toBe(false);
    expect(
      loadConfig({ TEXTRELAY_PUBLIC_URL: upstream.TEXTRELAY_PUBLIC_URL, ...UPSTREAM_CREDENTIALS }, { TEXTRELAY_TRANSPORT: 'upstream' })
        .TEXTRELAY_ALLOW_PRIVATE_CALLBACKS,
      'the mode from a flag counts too',
    ).toBe(false);
  });

  it('link-local and metadata addresses are refused in every mode unless TEXTRELAY_ALLOW_LINK_LOCAL_CALLBACKS says otherwise', () => {
    expect(loadConfig({}).TEXTRELAY_ALLOW_LINK_LOCAL_CALLBACKS).toBe(false);
    expect(loadConfig(upstream).TEXTRELAY_ALLOW_LINK_LOCAL_CALLBACKS).toBe(false);
    expect(loadConfig({ TEXTRELAY_ALLOW_PRIVATE_CALLBACKS: 'true' }).TEXTRELAY_ALLOW_LINK_LOCAL_CALLBACKS, 'not implied by private').toBe(
      false,
    );
    expect(loadConfig({ TEXTRELAY_ALLOW_LINK_LOCAL_CALLBACKS: '1' }).TEXTRELAY_ALLOW_LINK_LOCAL_CALLBACKS).toBe(true);
    const error = configError({ TEXTRELAY_ALLOW_LINK_LOCAL_CALLBACKS: 'maybe' });
    expect(namesVariable(error.message, 'TEXTRELAY_ALLOW_LINK_LOCAL_CALLBACKS'), error.message).toBe(true);
  });

  it('an upstream on an address the policy refuses stops the start, naming the setting that allows it', () => {
    const loopback = configError({ ...upstream, TEXTRELAY_UPSTREAM_URL: 'http://127.0.0.1:8080' });
    expect(loopback.message).toMatch(
      /TEXTRELAY_UPSTREAM_URL: is 127\.0\.0\.1, a private, loopback or reserved address: set TEXTRELAY_ALLOW_PRIVATE_CALLBACKS=true/,
    );
    const metadata = configError({
      ...upstream,
      TEXTRELAY_UPSTREAM_URL: 'http://169.254.169.254',
      TEXTRELAY_ALLOW_PRIVATE_CALLBACKS: 'true',
    });
    expect(metadata.message).toMatch(/TEXTRELAY_UPSTREAM_URL: .* set TEXTRELAY_ALLOW_LINK_LOCAL_CALLBACKS=true/);
    expect(
      loadConfig({ ...upstream, TEXTRELAY_UPSTREAM_URL: 'http://127.0.0.1:8080', TEXTRELAY_ALLOW_PRIVATE_CALLBACKS: 'true' })
        .TEXTRELAY_UPSTREAM_URL,
    ).toBe('http://127.0.0.1:8080');
  });
});

describe('loadConfig treats an empty string as unset', () => {
  it('in the environment: the default applies', () => {
    const config = loadConfig({
      PORT: '',
      HOST: '',
      TEXTRELAY_DB: '',
      TEXTRELAY_TRANSPORT: '',
      TEXTRELAY_PUBLIC_URL: '',
      TEXTRELAY_ALLOW_PRIVATE_CALLBACKS: '',
      TEXTRELAY_DISPLAY_TZ: '',
      TEXTRELAY_WEBHOOK_RETRY_SCHEDULE: '',
      LOG_LEVEL: '',
    });
    expect(config).toMatchObject({
      PORT: 3000,
      HOST: '127.0.0.1',
      TEXTRELAY_DB: './data/textrelay.db',
      TEXTRELAY_TRANSPORT: 'sandbox',
      TEXTRELAY_ALLOW_PRIVATE_CALLBACKS: true,
      TEXTRELAY_DISPLAY_TZ: 'UTC',
      LOG_LEVEL: 'info',
    });
    expect(config.TEXTRELAY_PUBLIC_URL).toBeUndefined();
  });

  it('in an override: the environment value stays', () => {
    expect(loadConfig({ PORT: '8080' }, { PORT: '' }).PORT).toBe(8080);
  });
});

describe('loadConfig refuses bad values with a ConfigError naming the variable', () => {
  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['PORT', '-1'],
    ['PORT', '80.5'],
    ['TEXTRELAY_TRANSPORT', 'carrier-pigeon'],
    ['TEXTRELAY_DISPLAY_TZ', 'Mars/Base'],
    ['TEXTRELAY_WEBHOOK_RETRY_SCHEDULE', '5,,x'],
    ['TEXTRELAY_PUBLIC_URL', 'not a url'],
    ['TEXTRELAY_PUBLIC_URL', 'ftp://example.com/'],
    ['TEXTRELAY_UPSTREAM_URL', 'nope'],
    ['TEXTRELAY_ALLOW_PRIVATE_CALLBACKS', 'maybe'],
    ['TEXTRELAY_SANDBOX_STEP_MS', 'soon'],
    ['TEXTRELAY_RATE_LIMIT_PER_MINUTE', '-5'],
    ['TEXTRELAY_DELIVERY_RETENTION_DAYS', '-1'],
    ['TEXTRELAY_DELIVERY_RETENTION_DAYS', '7.5'],
    ['TEXTRELAY_ORPHAN_EVENT_RETENTION_DAYS', '-1'],
    ['TEXTRELAY_ORPHAN_EVENT_RETENTION_DAYS', '2.5'],
    ['LOG_LEVEL', 'loud'],
  ])('%s=%j', (name, value) => {
    const error = configError({ [name]: value });
    expect(error).toBeInstanceOf(Error);
    expect(namesVariable(error.message, name), error.message).toBe(true);
  });

  it('lists every bad value at once, not only the first', () => {
    const error = configError({ PORT: 'abc', TEXTRELAY_TRANSPORT: 'carrier-pigeon', LOG_LEVEL: 'loud' });
    for (const name of ['PORT', 'TEXTRELAY_TRANSPORT', 'LOG_LEVEL']) expect(namesVariable(error.message, name), error.message).toBe(true);
  });

  it('does not name variables that were fine', () => {
    const error = configError({ PORT: '8080', TEXTRELAY_TRANSPORT: 'carrier-pigeon' });
    expect(namesVariable(error.message, 'PORT')).toBe(false);
  });
});

describe('secrets given as files (NAME_FILE), as container runtimes mount them', () => {
  const dir = mkdtempSync(join(tmpdir(), 'textrelay-config-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  function secretFile(name: string, contents: string): string {
    const file = join(dir, name);
    writeFileSync(file, contents);
    return file;
  }

  it('reads each secret setting from its file, without the trailing newline', () => {
    const config = loadConfig({
      TEXTRELAY_DATABASE_URL_FILE: secretFile('url', 'postgres://textrelay:s3cret@db:5432/textrelay\n'),
      TEXTRELAY_UPSTREAM_SECRET_FILE: secretFile('upstream', 'sk_upstream\r\n'),
      TEXTRELAY_INGEST_SECRET_FILE: secretFile('ingest', 'whsec_c2VjcmV0'),
      TEXTRELAY_METRICS_TOKEN_FILE: secretFile('metrics', 'a-token-of-sixteen-chars\n'),
    });
    expect(config).toMatchObject({
      TEXTRELAY_DATABASE_URL: 'postgres://textrelay:s3cret@db:5432/textrelay',
      TEXTRELAY_UPSTREAM_SECRET: 'sk_upstream',
      TEXTRELAY_INGEST_SECRET: 'whsec_c2VjcmV0',
      TEXTRELAY_METRICS_TOKEN: 'a-token-of-sixteen-chars',
    });
  });

  it('checks a value from a file as it checks the variable', () => {
    const error = configError({ TEXTRELAY_METRICS_TOKEN_FILE: secretFile('short', 'short\n') });
    expect(error.message).toContain('TEXTRELAY_METRICS_TOKEN: must be at least 16 characters');
  });

  it('lets a flag win over a file, as over the variable', () => {
    const config = loadConfig(
      { TEXTRELAY_DATABASE_URL_FILE: secretFile('env-url', 'postgres://a@db/one\n') },
      { TEXTRELAY_DATABASE_URL: 'postgres://b@db/two' },
    );
    expect(config.TEXTRELAY_DATABASE_URL).toBe('postgres://b@db/two');
  });

  it('refuses a setting given both ways, a file it cannot read and an empty one, naming each', () => {
    const missing = join(dir, 'missing');
    const error = configError({
      TEXTRELAY_UPSTREAM_SECRET: 'sk_env',
      TEXTRELAY_UPSTREAM_SECRET_FILE: secretFile('both', 'sk_file'),
      TEXTRELAY_INGEST_SECRET_FILE: missing,
      TEXTRELAY_UPSTREAM_KEY_ID_FILE: secretFile('empty', '\n'),
    });
    expect(error.message).toContain(
      'TEXTRELAY_UPSTREAM_SECRET_FILE: give TEXTRELAY_UPSTREAM_SECRET or TEXTRELAY_UPSTREAM_SECRET_FILE, not both',
    );
    expect(error.message).toContain(`TEXTRELAY_INGEST_SECRET_FILE: cannot read ${missing} (ENOENT)`);
    expect(error.message).toContain(`TEXTRELAY_UPSTREAM_KEY_ID_FILE: ${join(dir, 'empty')} is empty`);
  });

  it("reads the carriers' secrets from files: the Twilio token and the BlueBubbles password", () => {
    const config = loadConfig({
      TEXTRELAY_TWILIO_AUTH_TOKEN_FILE: secretFile('twilio', 'twilio-token-0123\n'),
      TEXTRELAY_BLUEBUBBLES_PASSWORD_FILE: secretFile('bluebubbles', 'mac password\n'),
    });
    expect(config).toMatchObject({ TEXTRELAY_TWILIO_AUTH_TOKEN: 'twilio-token-0123', TEXTRELAY_BLUEBUBBLES_PASSWORD: 'mac password' });
  });

  it('reads no file for a setting that is not a secret', () => {
    expect(loadConfig({ PORT_FILE: secretFile('port', '8080\n') }).PORT).toBe(3000);
  });
});
