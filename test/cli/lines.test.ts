import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cliDatabase, commandsOn } from '../helpers/cli-commands.ts';
import { type FakeTwilio, startFakeTwilio, TWILIO_SID, TWILIO_TOKEN } from '../helpers/fake-twilio.ts';

// `accounts create`, `accounts lines add|list`, `accounts list` and `status` against a fake Twilio,
// as real processes on both backends: numbers the Twilio account does not hold are refused, and
// a line it stops holding is listed as not served.

const HELD = '+14155550170';
const ALSO_HELD = '+14155550171';
const NOT_HELD = '+14155550172';

const dir = mkdtempSync(join(tmpdir(), 'textrelay-lines-cli-'));
const twilios: FakeTwilio[] = [];
afterAll(async () => {
  await Promise.all(twilios.map((twilio) => twilio.close()));
  rmSync(dir, { recursive: true, force: true });
});

describe.each(['sqlite', 'postgres'] as const)('Twilio lines from the command line on %s', (backend) => {
  it('refuses a number the Twilio account does not hold, shows each line’s carrier, and lists a line it gave up', async () => {
    const twilio = await startFakeTwilio([HELD, ALSO_HELD]);
    twilios.push(twilio);
    const db = await cliDatabase(backend, dir);
    const env = {
      LOG_LEVEL: 'warn',
      TEXTRELAY_TRANSPORT: 'twilio',
      TEXTRELAY_TWILIO_ACCOUNT_SID: TWILIO_SID,
      TEXTRELAY_TWILIO_AUTH_TOKEN: TWILIO_TOKEN,
      TEXTRELAY_TWILIO_API_URL: twilio.url,
      TEXTRELAY_PUBLIC_URL: 'https://relay.example.com',
    };
    const { ok, refused } = commandsOn(db, env);
    const refusedAs = async (args: string[], message: string) => expect((await refused(args)).stderr).toBe(`textrelay: ${message}\n`);
    const notHeld = `${NOT_HELD} is not a number of Twilio account ${TWILIO_SID}`;

    await refusedAs(['accounts', 'create', '--email', 'a@example.com', '--numbers', `${HELD},${NOT_HELD}`], notHeld);
    await ok(['accounts', 'create', '--email', 'a@example.com', '--numbers', HELD]);
    await refusedAs(['accounts', 'lines', 'add', '--email', 'a@example.com', NOT_HELD], notHeld);
    await ok(['accounts', 'lines', 'add', '--email', 'a@example.com', ALSO_HELD]);

    expect((await ok(['accounts', 'lines', 'list', '--email', 'a@example.com'])).stdout).toBe(
      `Lines of a@example.com: ${HELD} (twilio), ${ALSO_HELD} (twilio)\n`,
    );
    const [listed] = JSON.parse((await ok(['accounts', 'list', '--json'])).stdout);
    expect(listed.lines).toEqual([
      { number: HELD, carrier: 'twilio' },
      { number: ALSO_HELD, carrier: 'twilio' },
    ]);

    // The Twilio account gives ALSO_HELD up: status lists it as not served, with the reason.
    twilio.numbers.splice(1, 1);
    const status = JSON.parse((await ok(['status', '--json'])).stdout);
    expect(status.offline_lines).toEqual([
      {
        number: ALSO_HELD,
        email: 'a@example.com',
        carrier: 'twilio',
        reason: `${ALSO_HELD} is not a number of Twilio account ${TWILIO_SID}`,
      },
    ]);
  }, 240_000);
});
