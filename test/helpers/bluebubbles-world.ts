import SendblueAPI from 'sendblue';
import { type BackgroundWork, startBackgroundWork } from '../../src/background.ts';
import { type Receiver, startReceiver } from '../callbacks/receiver.ts';
import { makeTestApp } from './app.ts';
import { carrierRuntime } from './carrier-runtime.ts';
import { type FakeBlueBubbles, startFakeBlueBubbles } from './fake-bluebubbles/server.ts';
import { serveOnLoopback } from './listen.ts';

export const BB_LINE = '+16175550199';

/**
 * textrelay with TEXTRELAY_TRANSPORT=bluebubbles in this process, on the test backend, served on
 * loopback (the fake Mac posts its webhooks to its public URL), with the official SDK as its
 * client and a receiver for its callbacks. `prepare` sets the fake up before textrelay starts.
 */
export async function startBlueBubblesWorld(options: { prepare?: (fake: FakeBlueBubbles) => void } = {}) {
  const fake = await startFakeBlueBubbles();
  options.prepare?.(fake);
  const receiver = await startReceiver();
  let serve: (request: Request) => Response | Promise<Response> = () => new Response('starting', { status: 503 });
  const listening = await serveOnLoopback((request) => serve(request));
  const t = makeTestApp({
    transportName: 'bluebubbles',
    config: {
      TEXTRELAY_BLUEBUBBLES_URL: fake.url,
      TEXTRELAY_BLUEBUBBLES_PASSWORD: fake.settings.password,
      TEXTRELAY_PUBLIC_URL: listening.url,
      TEXTRELAY_CARRIER_RETRY_SCHEDULE: '0.05,0.05',
    },
  });
  serve = (request) => t.app.fetch(request);
  const account = await t.createAccount({ numbers: [BB_LINE], carrier: 'bluebubbles' });
  const runtime = carrierRuntime(t);
  const background: BackgroundWork = await startBackgroundWork(t.config, runtime);
  const sdk = new SendblueAPI({ apiKey: account.api_key_id, apiSecret: account.api_secret_key, baseURL: listening.url, maxRetries: 0 });
  return {
    t,
    fake,
    sdk,
    receiver: receiver as Receiver,
    url: listening.url,
    async close() {
      await background.stop();
      await listening.close();
      await receiver.close();
      await fake.close();
      await t.close();
    },
  };
}

export type BlueBubblesWorld = Awaited<ReturnType<typeof startBlueBubblesWorld>>;
