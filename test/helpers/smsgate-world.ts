import SendblueAPI from 'sendblue';
import { type BackgroundWork, startBackgroundWork } from '../../src/background.ts';
import { makeTestApp } from './app.ts';
import { carrierRuntime } from './carrier-runtime.ts';
import { type FakeSmsGateOptions, SMSGATE_PASSWORD, SMSGATE_SIGNING_KEY, SMSGATE_USERNAME, startFakeSmsGate } from './fake-smsgate.ts';
import { serveOnLoopback } from './listen.ts';

/**
 * textrelay with TEXTRELAY_TRANSPORT=smsgate in this process, on the test backend, served on
 * loopback (the fake phone posts its webhooks to its public URL), with the official SDK as its client.
 */
export async function startSmsGateWorld(
  options: {
    line: string;
    retrySchedule?: string;
    readbackSeconds?: number;
    config?: Record<string, string | number>;
    phone?: FakeSmsGateOptions;
  } = { line: '+14155550170' },
) {
  // The phone's clock is the app's (a fake one): its X-Timestamp must be within five minutes of it.
  let clock: () => number = Date.now;
  const phone = await startFakeSmsGate({ phoneNumber: options.line, now: () => clock(), ...options.phone });
  let serve: (request: Request) => Response | Promise<Response> = () => new Response('starting', { status: 503 });
  const listening = await serveOnLoopback((request) => serve(request));
  const t = makeTestApp({
    transportName: 'smsgate',
    config: {
      TEXTRELAY_SMSGATE_URL: phone.url,
      TEXTRELAY_SMSGATE_USERNAME: SMSGATE_USERNAME,
      TEXTRELAY_SMSGATE_PASSWORD: SMSGATE_PASSWORD,
      TEXTRELAY_SMSGATE_SIGNING_KEY: SMSGATE_SIGNING_KEY,
      TEXTRELAY_PUBLIC_URL: listening.url,
      TEXTRELAY_CARRIER_RETRY_SCHEDULE: options.retrySchedule ?? '0.05,0.05',
      ...(options.readbackSeconds === undefined ? {} : { TEXTRELAY_CARRIER_READBACK_S: options.readbackSeconds }),
      ...options.config,
    },
  });
  serve = (request) => t.app.fetch(request);
  clock = () => t.clock.now();
  const account = await t.createAccount({ numbers: [options.line], carrier: 'smsgate' });
  let background: BackgroundWork | undefined;
  const runtime = carrierRuntime(t);
  const { carriers } = runtime;
  const sdk = new SendblueAPI({ apiKey: account.api_key_id, apiSecret: account.api_secret_key, baseURL: listening.url, maxRetries: 0 });
  return {
    t,
    phone,
    account,
    sdk,
    url: listening.url,
    carriers,
    /** What `serve` does after opening the database: the carriers' start (which may refuse), the courier, the dispatcher. */
    async start() {
      background = await startBackgroundWork(t.config, runtime);
    },
    async close() {
      await background?.stop();
      await listening.close();
      await phone.close();
      await t.close();
    },
  };
}

export type SmsGateWorld = Awaited<ReturnType<typeof startSmsGateWorld>>;
