import SendblueAPI from 'sendblue';
import { type BackgroundWork, startBackgroundWork } from '../../src/background.ts';
import type { Config } from '../../src/config.ts';
import type { CarrierName } from '../../src/domain/carriers.ts';
import { makeTestApp } from './app.ts';
import { carrierRuntime } from './carrier-runtime.ts';
import { serveOnLoopback } from './listen.ts';

/**
 * textrelay on one carrier in this process, on the test backend, served on loopback (the fake
 * carrier posts to its public URL), with an account holding `lines` and the official SDK as its client.
 */
export async function startCarrierWorld(options: {
  carrier: CarrierName;
  lines: string[];
  /** The carrier's settings. */
  config: Record<string, string | number>;
  retrySchedule?: string | undefined;
  readbackSeconds?: number | undefined;
}) {
  let serve: (request: Request) => Response | Promise<Response> = () => new Response('starting', { status: 503 });
  const listening = await serveOnLoopback((request) => serve(request));
  const t = makeTestApp({
    transportName: options.carrier as Config['TEXTRELAY_TRANSPORT'],
    config: {
      TEXTRELAY_PUBLIC_URL: listening.url,
      TEXTRELAY_CARRIER_RETRY_SCHEDULE: options.retrySchedule ?? '0.05,0.05',
      ...(options.readbackSeconds === undefined ? {} : { TEXTRELAY_CARRIER_READBACK_S: options.readbackSeconds }),
      ...options.config,
    },
  });
  serve = (request) => t.app.fetch(request);
  const account = await t.createAccount({ numbers: options.lines, carrier: options.carrier });
  let background: BackgroundWork | undefined;
  const runtime = carrierRuntime(t);
  const sdk = new SendblueAPI({ apiKey: account.api_key_id, apiSecret: account.api_secret_key, baseURL: listening.url, maxRetries: 0 });
  return {
    t,
    account,
    sdk,
    url: listening.url,
    carriers: runtime.carriers,
    /** What `serve` does after opening the database: the carriers' start (which may refuse), the courier, the dispatcher. */
    async start() {
      background = await startBackgroundWork(t.config, runtime);
    },
    async close() {
      await background?.stop();
      await listening.close();
      await t.close();
    },
  };
}
