import type { Logger } from 'pino';
import SendblueAPI from 'sendblue';
import { type BackgroundWork, startBackgroundWork } from '../../src/background.ts';
import type { Config } from '../../src/config.ts';
import { makeTestApp, type TestAccount } from '../helpers/app.ts';
import { carrierRuntime } from '../helpers/carrier-runtime.ts';
import { type FakeBlueBubbles, startFakeBlueBubbles } from '../helpers/fake-bluebubbles/server.ts';
import { startFakeTwilio, TWILIO_SID, TWILIO_TOKEN } from '../helpers/fake-twilio.ts';
import { serveOnLoopback } from '../helpers/listen.ts';
import { eventually } from '../helpers/live.ts';

export const BB_LINE = '+16175550199';
export const TWILIO_LINE = '+14155550190';
export const OTHER_TWILIO_LINE = '+14155550191';

/**
 * textrelay with TEXTRELAY_TRANSPORT=bluebubbles,twilio in this process, on the test backend,
 * served on loopback, with three tenants: one owns the BlueBubbles line, two own a Twilio line each.
 */
export async function startCarriersWorld(
  options: { log?: Logger; config?: Partial<Config>; prepare?: (mac: FakeBlueBubbles) => void } = {},
) {
  const twilio = await startFakeTwilio([TWILIO_LINE, OTHER_TWILIO_LINE]);
  const mac = await startFakeBlueBubbles();
  options.prepare?.(mac);
  let serve: (request: Request) => Response | Promise<Response> = () => new Response('starting', { status: 503 });
  const listening = await serveOnLoopback((request) => serve(request));
  const t = makeTestApp({
    transportName: 'bluebubbles,twilio',
    log: options.log,
    config: {
      TEXTRELAY_BLUEBUBBLES_URL: mac.url,
      TEXTRELAY_BLUEBUBBLES_PASSWORD: mac.settings.password,
      TEXTRELAY_TWILIO_ACCOUNT_SID: TWILIO_SID,
      TEXTRELAY_TWILIO_AUTH_TOKEN: TWILIO_TOKEN,
      TEXTRELAY_TWILIO_API_URL: twilio.url,
      TEXTRELAY_PUBLIC_URL: listening.url,
      TEXTRELAY_CARRIER_RETRY_SCHEDULE: '0.05,0.05',
      ...options.config,
    },
  });
  serve = (request) => t.app.fetch(request);
  const imessage = await t.createAccount({ numbers: [BB_LINE], carrier: 'bluebubbles' });
  const sms = await t.createAccount({ numbers: [TWILIO_LINE], carrier: 'twilio' });
  const otherSms = await t.createAccount({ numbers: [OTHER_TWILIO_LINE], carrier: 'twilio' });
  const background: BackgroundWork = await startBackgroundWork(t.config, carrierRuntime(t));
  const sdkOf = (account: TestAccount) =>
    new SendblueAPI({ apiKey: account.api_key_id, apiSecret: account.api_secret_key, baseURL: listening.url, maxRetries: 0 });

  /** Waits until the message is handed over, and answers its row (its transport handle: a Twilio sid or an iMessage guid). */
  async function handedOver(handle: string) {
    return eventually(`${handle} handed over`, async () => {
      const row = await t.store.messages.findByAnyHandle(handle);
      return row?.transportHandle ? row : undefined;
    });
  }

  return {
    t,
    twilio,
    mac,
    url: listening.url,
    imessage,
    sms,
    otherSms,
    sdkOf,
    handedOver,
    async close() {
      await background.stop();
      await listening.close();
      await twilio.close();
      await mac.close();
      await t.close();
    },
  };
}

export type CarriersWorld = Awaited<ReturnType<typeof startCarriersWorld>>;
