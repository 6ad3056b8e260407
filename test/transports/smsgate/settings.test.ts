import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/config.ts';
import { StartupError } from '../../../src/startup-error.ts';
import { ALICE } from '../../helpers/fixtures.ts';
import { eventually } from '../../helpers/live.ts';
import { type SmsGateWorld, startSmsGateWorld } from '../../helpers/smsgate-world.ts';

/** TEXTRELAY_TRANSPORT=smsgate's settings, and the start that checks them against the phone (issue 37). */

const LINE = '+14155550170';
const SMSGATE_ENV = {
  TEXTRELAY_TRANSPORT: 'smsgate',
  TEXTRELAY_SMSGATE_URL: 'http://192.168.1.20:8080',
  TEXTRELAY_SMSGATE_USERNAME: 'sms',
  TEXTRELAY_SMSGATE_PASSWORD: 'phone-password',
  TEXTRELAY_SMSGATE_SIGNING_KEY: 'phone-signing-key',
  TEXTRELAY_PUBLIC_URL: 'https://relay.example',
};
const OTHERS_ENV = {
  TEXTRELAY_BLUEBUBBLES_URL: 'http://192.168.1.21:1234',
  TEXTRELAY_BLUEBUBBLES_PASSWORD: 'mac-password',
  TEXTRELAY_TWILIO_ACCOUNT_SID: 'AC0123456789abcdef0123456789abcdef',
  TEXTRELAY_TWILIO_AUTH_TOKEN: 'token',
};

function configProblem(env: Record<string, string | undefined>): string {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  throw new Error(`the configuration was accepted: ${JSON.stringify(env)}`);
}

describe('TEXTRELAY_TRANSPORT with smsgate', () => {
  it.each([
    'smsgate',
    'bluebubbles,smsgate',
    'smsgate,twilio',
    'bluebubbles,twilio,smsgate',
    'bluebubbles,smsgate,twilio',
    'twilio,bluebubbles,smsgate',
    'twilio,smsgate,bluebubbles',
    'smsgate,bluebubbles,twilio',
    'smsgate,twilio,bluebubbles',
  ])('accepts %s', (transport) => {
    expect(loadConfig({ ...SMSGATE_ENV, ...OTHERS_ENV, TEXTRELAY_TRANSPORT: transport }).TEXTRELAY_TRANSPORT).toBe(transport);
  });

  it.each(['smsgate,smsgate', 'sms', 'sandbox,smsgate', 'smsgate,', 'SMSGate', 'smsgate, twilio'])(
    'refuses %j, naming the setting and the carriers it knows',
    (transport) => {
      const problem = configProblem({ ...SMSGATE_ENV, TEXTRELAY_TRANSPORT: transport });
      expect(problem).toContain(
        'TEXTRELAY_TRANSPORT: must be sandbox, upstream, or a comma list of distinct carriers among bluebubbles, twilio, smsgate',
      );
    },
  );

  it.each([
    'TEXTRELAY_SMSGATE_URL',
    'TEXTRELAY_SMSGATE_USERNAME',
    'TEXTRELAY_SMSGATE_PASSWORD',
    'TEXTRELAY_SMSGATE_SIGNING_KEY',
    'TEXTRELAY_PUBLIC_URL',
  ] as const)('refuses to start without %s, naming it and only it', (missing) => {
    const problem = configProblem({ ...SMSGATE_ENV, [missing]: undefined });
    expect(problem).toContain(`${missing}: is required when TEXTRELAY_TRANSPORT is smsgate`);
    for (const other of Object.keys(SMSGATE_ENV).filter((key) => key !== missing && key !== 'TEXTRELAY_TRANSPORT'))
      expect(problem).not.toContain(`${other}:`);
  });

  it("names every missing setting of each carrier listed, SMSGate's among them", () => {
    const problem = configProblem({ TEXTRELAY_TRANSPORT: 'twilio,smsgate' });
    for (const key of [
      'TEXTRELAY_SMSGATE_URL',
      'TEXTRELAY_SMSGATE_USERNAME',
      'TEXTRELAY_SMSGATE_PASSWORD',
      'TEXTRELAY_SMSGATE_SIGNING_KEY',
      'TEXTRELAY_TWILIO_ACCOUNT_SID',
      'TEXTRELAY_PUBLIC_URL',
    ])
      expect(problem).toContain(`${key}: is required when TEXTRELAY_TRANSPORT is twilio,smsgate`);
  });

  it('needs no SMSGate setting when smsgate is not listed', () => {
    expect(() => loadConfig({ ...OTHERS_ENV, TEXTRELAY_TRANSPORT: 'twilio', TEXTRELAY_PUBLIC_URL: 'https://relay.example' })).not.toThrow();
  });

  it('refuses a phone URL that is not http(s), and a phone on a cloud-metadata address', () => {
    expect(configProblem({ ...SMSGATE_ENV, TEXTRELAY_SMSGATE_URL: '192.168.1.20:8080' })).toContain(
      'TEXTRELAY_SMSGATE_URL: must be an absolute http(s) URL',
    );
    expect(configProblem({ ...SMSGATE_ENV, TEXTRELAY_SMSGATE_URL: 'http://169.254.169.254' })).toContain(
      'TEXTRELAY_SMSGATE_URL: is 169.254.169.254',
    );
  });

  it('takes a phone on the LAN or a cloud server, and an optional device id', () => {
    const cloud = loadConfig({
      ...SMSGATE_ENV,
      TEXTRELAY_SMSGATE_URL: 'https://api.sms-gate.app/3rdparty/v1',
      TEXTRELAY_SMSGATE_DEVICE_ID: 'PyDmBQZZXYmyxMwED8Fzy',
    });
    expect(cloud).toMatchObject({
      TEXTRELAY_SMSGATE_URL: 'https://api.sms-gate.app/3rdparty/v1',
      TEXTRELAY_SMSGATE_DEVICE_ID: 'PyDmBQZZXYmyxMwED8Fzy',
    });
    expect(loadConfig(SMSGATE_ENV).TEXTRELAY_SMSGATE_DEVICE_ID).toBeUndefined();
    expect(configProblem({ ...SMSGATE_ENV, TEXTRELAY_SMSGATE_DEVICE_ID: 'x'.repeat(22) })).toContain(
      'TEXTRELAY_SMSGATE_DEVICE_ID: must be at most 21 characters',
    );
  });
});

describe("SMSGate's secrets given as files", () => {
  const dir = mkdtempSync(join(tmpdir(), 'textrelay-smsgate-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  function secretFile(name: string, contents: string): string {
    const file = join(dir, name);
    writeFileSync(file, contents);
    return file;
  }

  it('reads TEXTRELAY_SMSGATE_PASSWORD_FILE and TEXTRELAY_SMSGATE_SIGNING_KEY_FILE, without the trailing newline', () => {
    const config = loadConfig({
      ...SMSGATE_ENV,
      TEXTRELAY_SMSGATE_PASSWORD: undefined,
      TEXTRELAY_SMSGATE_SIGNING_KEY: undefined,
      TEXTRELAY_SMSGATE_PASSWORD_FILE: secretFile('password', 'from-a-file\n'),
      TEXTRELAY_SMSGATE_SIGNING_KEY_FILE: secretFile('key', 'key-from-a-file\r\n'),
    });
    expect(config).toMatchObject({ TEXTRELAY_SMSGATE_PASSWORD: 'from-a-file', TEXTRELAY_SMSGATE_SIGNING_KEY: 'key-from-a-file' });
  });

  it('names the file setting that cannot be read, is empty, or is given with its variable', () => {
    const problem = configProblem({
      ...SMSGATE_ENV,
      TEXTRELAY_SMSGATE_PASSWORD: undefined,
      TEXTRELAY_SMSGATE_PASSWORD_FILE: join(dir, 'missing'),
      TEXTRELAY_SMSGATE_SIGNING_KEY_FILE: secretFile('both', 'key'),
    });
    expect(problem).toContain(`TEXTRELAY_SMSGATE_PASSWORD_FILE: cannot read ${join(dir, 'missing')} (ENOENT)`);
    expect(problem).toContain(
      'TEXTRELAY_SMSGATE_SIGNING_KEY_FILE: give TEXTRELAY_SMSGATE_SIGNING_KEY or TEXTRELAY_SMSGATE_SIGNING_KEY_FILE, not both',
    );
    expect(
      configProblem({
        ...SMSGATE_ENV,
        TEXTRELAY_SMSGATE_SIGNING_KEY: undefined,
        TEXTRELAY_SMSGATE_SIGNING_KEY_FILE: secretFile('empty', '\n'),
      }),
    ).toContain(`TEXTRELAY_SMSGATE_SIGNING_KEY_FILE: ${join(dir, 'empty')} is empty`);
  });
});

describe('the start, checked against the phone', () => {
  const worlds: SmsGateWorld[] = [];
  afterEach(async () => {
    await Promise.all(worlds.splice(0).map((world) => world.close()));
  });

  async function world(options: Omit<Parameters<typeof startSmsGateWorld>[0], 'line'> = {}): Promise<SmsGateWorld> {
    const started = await startSmsGateWorld({ line: LINE, ...options });
    worlds.push(started);
    return started;
  }

  /** The start's refusal: a StartupError, one line, naming `setting`. */
  async function refusal(started: SmsGateWorld, setting: string): Promise<string> {
    const error = await started.start().then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(StartupError);
    const { message } = error as StartupError;
    expect(message).not.toContain('\n');
    expect(message).toContain(setting);
    return message;
  }

  it('is refused on a password the phone refuses, naming the username and password settings, and sends nothing', async () => {
    const started = await world({ config: { TEXTRELAY_SMSGATE_PASSWORD: 'not-the-password' } });
    const message = await refusal(started, 'TEXTRELAY_SMSGATE_PASSWORD');
    expect(message).toContain('TEXTRELAY_SMSGATE_USERNAME');
    expect(message).toContain('(401)');
    expect(message).not.toContain('not-the-password');
    expect(started.phone.webhooks.size).toBe(0);
  });

  it('is refused on a TEXTRELAY_SMSGATE_DEVICE_ID the phone is not, naming the phone it reaches', async () => {
    const started = await world({ config: { TEXTRELAY_SMSGATE_DEVICE_ID: 'NotThisPhone000000000' } });
    const message = await refusal(started, 'TEXTRELAY_SMSGATE_DEVICE_ID');
    expect(message).toContain('NotThisPhone000000000');
    expect(started.phone.webhooks.size).toBe(0);
  });

  it('is refused when the phone refuses the webhook URL, naming TEXTRELAY_PUBLIC_URL', async () => {
    const started = await world({ config: { TEXTRELAY_PUBLIC_URL: 'http://192.168.1.5:3000' } });
    const message = await refusal(started, 'TEXTRELAY_PUBLIC_URL');
    expect(message).toContain('http://192.168.1.5:3000/webhooks/carriers/smsgate/events');
    expect(started.phone.webhooks.size).toBe(0);
  });

  it('registers one webhook per event at the public URL on a good start', async () => {
    const started = await world();
    await started.start();
    const hooks = [...started.phone.webhooks.values()];
    expect(hooks.map((hook) => hook.event).sort()).toEqual(['sms:delivered', 'sms:failed', 'sms:received', 'sms:sent']);
    for (const hook of hooks) {
      expect(hook.url).toBe(`${started.url}/webhooks/carriers/smsgate/events`);
      expect(hook.id).toMatch(new RegExp(`^textrelay-[0-9a-f]{8}-${hook.event.replace(':', '-')}$`));
    }
  });

  it('goes on with the phone unreachable: a send waits, then goes once the phone answers, and the webhooks follow', async () => {
    const started = await world({ retrySchedule: '0.2,0.2,0.2,0.2,0.2,0.2,0.2,0.2,0.2,0.2,0.2,0.2,0.2,0.2,0.2', readbackSeconds: 0.2 });
    started.phone.control.down = true;
    await started.start();
    const sent = await started.sdk.messages.send({ number: ALICE, from_number: LINE, content: 'sent while the phone is away' });
    const handle = sent.message_handle as string;
    // Long enough for several attempts to fail against the unreachable phone.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(started.phone.messages).toHaveLength(0);
    expect((await started.sdk.messages.retrieve(handle)).data?.status).toBe('QUEUED');

    started.phone.control.down = false;
    const onPhone = await eventually('the phone to take the message', async () => started.phone.messages.find((m) => m.id === handle));
    expect(onPhone).toMatchObject({ text: 'sent while the phone is away', phoneNumbers: [ALICE] });
    expect(started.phone.messages).toHaveLength(1);
    const hooks = await eventually('a read-back pass to register our webhooks', async () =>
      started.phone.webhooks.size === 4 ? [...started.phone.webhooks.values()] : undefined,
    );
    expect(hooks.map((hook) => hook.event).sort()).toEqual(['sms:delivered', 'sms:failed', 'sms:received', 'sms:sent']);
  });
});
