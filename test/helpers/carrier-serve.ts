/**
 * A real `textrelay serve` process with TEXTRELAY_TRANSPORT=bluebubbles,twilio,smsgate, its fake
 * BlueBubbles, fake Twilio and fake SMSGate phone in the test process, an account with one line on
 * each, and a receiver for the account's webhooks. The server always comes back on the same port:
 * the carriers keep its URL.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { type Receiver, startReceiver } from '../callbacks/receiver.ts';
import { type FakeBlueBubbles, startFakeBlueBubbles } from './fake-bluebubbles/server.ts';
import {
  type FakeSmsGate,
  type FakeSmsGateOptions,
  SMSGATE_PASSWORD,
  SMSGATE_SIGNING_KEY,
  SMSGATE_USERNAME,
  startFakeSmsGate,
} from './fake-smsgate.ts';
import { type FakeTwilio, startFakeTwilio, TWILIO_SID, TWILIO_TOKEN } from './fake-twilio.ts';
import { type Credentials, startServerOnFreePort } from './live.ts';
import { type CliResult, type RunningServer, runCli, startServer } from './process.ts';

export const BB_LINE = '+16175550199';
export const TWILIO_LINE = '+14155550190';
export const SMSGATE_LINE = '+14155550170';
const SLOW = 60_000;

export async function startCarrierServe(options: { env?: Record<string, string>; smsgate?: FakeSmsGateOptions } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'textrelay-carriers-'));
  const bluebubbles: FakeBlueBubbles = await startFakeBlueBubbles();
  const twilio: FakeTwilio = await startFakeTwilio([TWILIO_LINE]);
  // The server's clock is real, so the phone's own (Date.now) signs webhooks it accepts.
  const smsgate: FakeSmsGate = await startFakeSmsGate({ phoneNumber: SMSGATE_LINE, ...options.smsgate });
  const receiver: Receiver = await startReceiver();
  const env = (port: number): Record<string, string> => ({
    TEXTRELAY_DB: join(dir, 'textrelay.db'),
    TEXTRELAY_TRANSPORT: 'bluebubbles,twilio,smsgate',
    TEXTRELAY_BLUEBUBBLES_URL: bluebubbles.url,
    TEXTRELAY_BLUEBUBBLES_PASSWORD: bluebubbles.settings.password,
    TEXTRELAY_TWILIO_ACCOUNT_SID: TWILIO_SID,
    TEXTRELAY_TWILIO_AUTH_TOKEN: TWILIO_TOKEN,
    TEXTRELAY_TWILIO_API_URL: twilio.url,
    TEXTRELAY_SMSGATE_URL: smsgate.url,
    TEXTRELAY_SMSGATE_USERNAME: SMSGATE_USERNAME,
    TEXTRELAY_SMSGATE_PASSWORD: SMSGATE_PASSWORD,
    TEXTRELAY_SMSGATE_SIGNING_KEY: SMSGATE_SIGNING_KEY,
    TEXTRELAY_PUBLIC_URL: `http://127.0.0.1:${port}`,
    // The account's webhooks go to the receiver on loopback.
    TEXTRELAY_ALLOW_PRIVATE_CALLBACKS: 'true',
    TEXTRELAY_CARRIER_RETRY_SCHEDULE: '0.2,0.2,0.2,0.2,0.2',
    TEXTRELAY_CARRIER_READBACK_S: '1',
    TEXTRELAY_WEBHOOK_RETRY_SCHEDULE: '0.2,0.2,0.2',
    LOG_LEVEL: 'warn',
    ...options.env,
  });

  async function cli(args: string[], port: number): Promise<CliResult> {
    const result = await runCli(args, env(port), SLOW);
    expect(result.code, `textrelay ${args.join(' ')}\n${result.stderr}`).toBe(0);
    return result;
  }

  // The account exists before the first start: each carrier checks its lines when it starts.
  const created = await cli(
    [
      'accounts',
      'create',
      '--email',
      'carriers@example.com',
      '--numbers',
      BB_LINE,
      '--carrier',
      'bluebubbles',
      '--receive-webhook',
      receiver.url('/receive'),
      '--json',
    ],
    0,
  );
  const account = JSON.parse(created.stdout) as Credentials;
  await cli(['accounts', 'lines', 'add', '--email', 'carriers@example.com', TWILIO_LINE, '--carrier', 'twilio'], 0);
  await cli(['accounts', 'lines', 'add', '--email', 'carriers@example.com', SMSGATE_LINE, '--carrier', 'smsgate'], 0);

  let server: RunningServer = await startServerOnFreePort(env, SLOW);
  const port = server.port;
  return {
    dir,
    bluebubbles,
    twilio,
    smsgate,
    receiver,
    account,
    get server() {
      return server;
    },
    /** `textrelay status --json` beside the server, with its environment. */
    async status(): Promise<any> {
      return JSON.parse((await cli(['status', '--json'], port)).stdout);
    },
    /** `textrelay status`, as a person reads it. */
    async statusText(): Promise<string> {
      return (await cli(['status'], port)).stdout;
    },
    /** kill -9: no shutdown, whatever was in flight stays in flight. */
    async kill(): Promise<void> {
      await server.stop('SIGKILL');
    },
    async restart(): Promise<void> {
      server = await startServer([], { ...env(port), PORT: String(port) }, SLOW);
    },
    async close(): Promise<void> {
      await server.stop('SIGKILL');
      await Promise.all([bluebubbles.close(), twilio.close(), smsgate.close(), receiver.close()]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export type CarrierServe = Awaited<ReturnType<typeof startCarrierServe>>;
