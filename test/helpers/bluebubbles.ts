/** textrelay's BlueBubbles carrier in-process against the fake server: its webhooks served on loopback, a courier handing messages over. */
import { carrierPolicyOf, carrierRetryDelaysMs, loadConfig } from '../../src/config.ts';
import { createMediaFetcher } from '../../src/outbound/media-fetch.ts';
import { type BlueBubblesCarrier, createBlueBubblesCarrier } from '../../src/transports/bluebubbles/carrier.ts';
import { createHealthTracker } from '../../src/transports/carriers/health.ts';
import { createScrubber } from '../../src/transports/carriers/scrub.ts';
import { createCarrierTransport } from '../../src/transports/carriers/transport.ts';
import { createCourier } from '../../src/transports/courier.ts';
import type { TestAccount, TestApp } from './app.ts';
import { type FakeBlueBubbles, startFakeBlueBubbles } from './fake-bluebubbles/server.ts';
import { serveOnLoopback } from './listen.ts';

export type BlueBubblesRig = {
  fake: FakeBlueBubbles;
  carrier: BlueBubblesCarrier;
  courier: ReturnType<typeof createCourier>;
  publicUrl: string;
  /** Stops the carrier and its courier and starts new ones on the same database and fake: a restart. */
  restart(): Promise<void>;
  close(): Promise<void>;
};

/** An account whose one line is bound to BlueBubbles. */
export function blueBubblesAccount(t: TestApp, line = '+16175550199'): Promise<TestAccount> {
  return t.createAccount({ numbers: [line], carrier: 'bluebubbles' });
}

export async function startBlueBubblesRig(
  t: TestApp,
  options: { fake?: FakeBlueBubbles; retrySchedule?: string; password?: string } = {},
): Promise<BlueBubblesRig> {
  const fake = options.fake ?? (await startFakeBlueBubbles());
  let carrier: BlueBubblesCarrier;
  let courier: ReturnType<typeof createCourier>;
  const served = await serveOnLoopback((request) => carrier.webhooks(request));
  const config = loadConfig({
    TEXTRELAY_TRANSPORT: 'bluebubbles',
    TEXTRELAY_BLUEBUBBLES_URL: fake.url,
    TEXTRELAY_BLUEBUBBLES_PASSWORD: options.password ?? fake.settings.password,
    TEXTRELAY_PUBLIC_URL: served.url,
    TEXTRELAY_ALLOW_PRIVATE_CALLBACKS: 'true',
    TEXTRELAY_CARRIER_RETRY_SCHEDULE: options.retrySchedule ?? '0.02,0.02',
    TEXTRELAY_CARRIER_READBACK_S: '60',
  });
  const scrub = createScrubber([config.TEXTRELAY_BLUEBUBBLES_PASSWORD]);

  function build() {
    carrier = createBlueBubblesCarrier({
      deps: t.deps,
      config,
      log: t.deps.log,
      publicUrl: served.url,
      policy: carrierPolicyOf(config),
      fetchMedia: createMediaFetcher(carrierPolicyOf(config)),
      health: createHealthTracker('bluebubbles', t.deps.clock, scrub),
      scrub,
    }) as BlueBubblesCarrier;
    t.deps.carriers?.register(carrier);
    const transport = createCarrierTransport(t.deps, [carrier]);
    courier = createCourier(t.deps, transport, { retryDelaysMs: carrierRetryDelaysMs(config), concurrency: 4 });
  }
  build();
  return {
    fake,
    get carrier() {
      return carrier;
    },
    get courier() {
      return courier;
    },
    publicUrl: served.url,
    async restart() {
      await courier.stop();
      await carrier.stop();
      build();
      await carrier.start();
      await courier.resume();
    },
    async close() {
      await courier.stop();
      await carrier.stop();
      await fake.close();
      await served.close();
    },
  };
}
