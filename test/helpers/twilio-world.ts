import SendblueAPI from 'sendblue';
import { type BackgroundWork, startBackgroundWork } from '../../src/background.ts';
import { makeTestApp } from './app.ts';
import { carrierRuntime } from './carrier-runtime.ts';
import { startFakeTwilio, TWILIO_SID, TWILIO_TOKEN } from './fake-twilio.ts';
import { serveOnLoopback } from './listen.ts';

/**
 * textrelay with TEXTRELAY_TRANSPORT=twilio in this process, on the test backend, served on
 * loopback (the fake Twilio posts to its public URL), with the official SDK as its client.
 */
export async function startTwilioWorld(options: {
  lines: string[];
  otherNumbers?: string[];
  retrySchedule?: string;
  readbackSeconds?: number;
}) {
  const twilio = await startFakeTwilio([...options.lines, ...(options.otherNumbers ?? [])]);
  let serve: (request: Request) => Response | Promise<Response> = () => new Response('starting', { status: 503 });
  const listening = await serveOnLoopback((request) => serve(request));
  const t = makeTestApp({
    transportName: 'twilio',
    config: {
      TEXTRELAY_TWILIO_ACCOUNT_SID: TWILIO_SID,
      TEXTRELAY_TWILIO_AUTH_TOKEN: TWILIO_TOKEN,
      TEXTRELAY_TWILIO_API_URL: twilio.url,
      TEXTRELAY_PUBLIC_URL: listening.url,
      TEXTRELAY_CARRIER_RETRY_SCHEDULE: options.retrySchedule ?? '0.05,0.05',
      ...(options.readbackSeconds === undefined ? {} : { TEXTRELAY_CARRIER_READBACK_S: options.readbackSeconds }),
    },
  });
  serve = (request) => t.app.fetch(request);
  const account = await t.createAccount({ numbers: options.lines, carrier: 'twilio' });
  let background: BackgroundWork | undefined;
  const runtime = carrierRuntime(t);
  const { carriers } = runtime;
  const sdk = new SendblueAPI({ apiKey: account.api_key_id, apiSecret: account.api_secret_key, baseURL: listening.url, maxRetries: 0 });
  return {
    t,
    twilio,
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
      await twilio.close();
      await t.close();
    },
  };
}

export type TwilioWorld = Awaited<ReturnType<typeof startTwilioWorld>>;
