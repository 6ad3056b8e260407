import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cliDatabase, commandsOn } from '../helpers/cli-commands.ts';
import { type FakeSmsGate, SMSGATE_PASSWORD, SMSGATE_SIGNING_KEY, SMSGATE_USERNAME, startFakeSmsGate } from '../helpers/fake-smsgate.ts';
import { type FakeTwilio, startFakeTwilio, TWILIO_SID, TWILIO_TOKEN } from '../helpers/fake-twilio.ts';
import { describeRun, runCli } from '../helpers/process.ts';

// SMSGate lines from the command line, as real processes on both backends: a line bound to the
// phone with --carrier smsgate, by `accounts create` or `accounts lines add`, and one phone, one line.

const PHONE_LINE = '+14155550170';
const SECOND = '+14155550171';
const TWILIO_LINE = '+14155550172';

const dir = mkdtempSync(join(tmpdir(), 'textrelay-smsgate-cli-'));
const phones: FakeSmsGate[] = [];
const twilios: FakeTwilio[] = [];
afterAll(async () => {
  const fakes = [...phones, ...twilios];
  await Promise.all(fakes.map((fake) => fake.close()));
  rmSync(dir, { recursive: true, force: true });
});

describe.each(['sqlite', 'postgres'] as const)('SMSGate lines from the command line on %s', (backend) => {
  it('binds one line to the phone, by create and by lines add, and refuses a second naming SMSGate', async () => {
    const phone = await startFakeSmsGate({ phoneNumber: PHONE_LINE });
    phones.push(phone);
    const twilio = await startFakeTwilio([TWILIO_LINE]);
    twilios.push(twilio);
    const db = await cliDatabase(backend, dir);
    const env = {
      LOG_LEVEL: 'warn',
      TEXTRELAY_TRANSPORT: 'twilio,smsgate',
      TEXTRELAY_TWILIO_ACCOUNT_SID: TWILIO_SID,
      TEXTRELAY_TWILIO_AUTH_TOKEN: TWILIO_TOKEN,
      TEXTRELAY_TWILIO_API_URL: twilio.url,
      TEXTRELAY_SMSGATE_URL: phone.url,
      TEXTRELAY_SMSGATE_USERNAME: SMSGATE_USERNAME,
      TEXTRELAY_SMSGATE_PASSWORD: SMSGATE_PASSWORD,
      TEXTRELAY_SMSGATE_SIGNING_KEY: SMSGATE_SIGNING_KEY,
      TEXTRELAY_PUBLIC_URL: 'https://relay.example.com',
    };
    const { ok, refused } = commandsOn(db, env);
    const refusedAs = async (args: string[], pattern: RegExp) => expect((await refused(args)).stderr).toMatch(pattern);
    const linesOf = async (email: string) => (await ok(['accounts', 'lines', 'list', '--email', email])).stdout;
    const oneLine = /^textrelay: SMSGate serves one identity, so at most 1 line may be bound to it/;

    // A second phone line in the same create is refused before anything is written.
    await refusedAs(
      ['accounts', 'create', '--email', 'a@example.com', '--numbers', `${PHONE_LINE},${SECOND}`, '--carrier', 'smsgate'],
      oneLine,
    );
    expect((await ok(['accounts', 'list', '--json'])).stdout.trim()).toBe('[]');

    await ok(['accounts', 'create', '--email', 'a@example.com', '--numbers', PHONE_LINE, '--carrier', 'smsgate']);
    await ok(['accounts', 'lines', 'add', '--email', 'a@example.com', TWILIO_LINE, '--carrier', 'twilio']);
    expect(await linesOf('a@example.com')).toBe(`Lines of a@example.com: ${PHONE_LINE} (smsgate), ${TWILIO_LINE} (twilio)\n`);

    // The phone is one SIM: no second line, on this account or on another.
    await refusedAs(['accounts', 'lines', 'add', '--email', 'a@example.com', SECOND, '--carrier', 'smsgate'], oneLine);
    await refusedAs(['accounts', 'create', '--email', 'b@example.com', '--numbers', SECOND, '--carrier', 'smsgate'], oneLine);
    expect(await linesOf('a@example.com')).toBe(`Lines of a@example.com: ${PHONE_LINE} (smsgate), ${TWILIO_LINE} (twilio)\n`);

    // Once its line is gone, lines add binds the phone to another.
    await ok(['accounts', 'lines', 'remove', '--email', 'a@example.com', PHONE_LINE]);
    await ok(['accounts', 'lines', 'add', '--email', 'a@example.com', SECOND, '--carrier', 'smsgate']);
    const listed = JSON.parse((await ok(['accounts', 'list', '--json'])).stdout) as { email: string; lines: unknown[] }[];
    expect(listed.map((account) => [account.email, account.lines])).toEqual([
      [
        'a@example.com',
        [
          { number: TWILIO_LINE, carrier: 'twilio' },
          { number: SECOND, carrier: 'smsgate' },
        ],
      ],
    ]);
  }, 180_000);
});

describe('--carrier in the help', () => {
  it('lists smsgate for accounts create and accounts lines add', async () => {
    const result = await runCli(
      ['accounts', '--help'],
      { TEXTRELAY_DB: '/nonexistent/textrelay-help/textrelay.db', LOG_LEVEL: 'warn' },
      60_000,
    );
    expect(result.code, describeRun(result)).toBe(0);
    const usage = result.stdout.split('\n');
    for (const command of ['textrelay accounts create ', 'textrelay accounts lines add ']) {
      const line = usage.find((candidate) => candidate.trim().startsWith(command));
      expect(line, result.stdout).toContain('--carrier bluebubbles|twilio|smsgate');
    }
  }, 120_000);
});
