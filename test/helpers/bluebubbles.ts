/** textrelay's BlueBubbles carrier in-process against the fake server: its webhooks served on loopback, a courier handing messages over. */
import { carrierPolicyOf, carrierRetryDelaysMs, loadConfig } from '../../src/config.ts';
import { createMediaFetcher } from '../../src/outbound/media-fetch.ts';
import { type BlueBubblesCarrier, createBlueBubblesCarrier } from '../../src/transports/bluebubbles/carrier.ts';
import { createHealthTracker } from '../../src/transports/carriers/health.ts';
import { createScrubber } from '../../src/transports/carriers/scrub.ts';
import { createCarrierTransport } from '../../src/transports/carriers/transport.ts';
import { createCourier } from '../../src/transports/courier.ts';
import { makeTestApp, type TestAccount, type TestApp } from './app.ts';
import { send } from './delivery.ts';
import { type FakeBlueBubbles, startFakeBlueBubbles } from './fake-bluebubbles/server.ts';
import { serveOnLoopback } from './listen.ts';
import { eventually } from './live.ts';

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
  options: { fake?: FakeBlueBubbles; retrySchedule?: string; password?: string; env?: Record<string, string> } = {},
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
    ...options.env,
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

/** A test app with one BlueBubbles line, its carrier started against a fake server; `close` stops them. */
export async function startBlueBubblesCarrier(
  options: Parameters<typeof startBlueBubblesRig>[1] & { log?: TestApp['deps']['log']; prepare?: (fake: FakeBlueBubbles) => void } = {},
): Promise<{ t: TestApp; account: TestAccount; rig: BlueBubblesRig }> {
  const t = makeTestApp({ transportName: 'bluebubbles', log: options.log });
  const account = await blueBubblesAccount(t);
  const fake = options.fake ?? (await startFakeBlueBubbles());
  options.prepare?.(fake);
  const rig = await startBlueBubblesRig(t, { ...options, fake });
  await rig.carrier.start();
  return { t, account, rig };
}

/** Sends through the services and hands the message over, as `serve` does after the commit. */
export async function sendThroughRig(t: TestApp, account: TestAccount, rig: BlueBubblesRig, input: Parameters<typeof send>[2] = {}) {
  const sent = await send(t, account, input);
  rig.courier.enqueue(sent.message_handle);
  return sent.message_handle;
}

/** The message once it has `status`. */
export async function untilStatus(t: TestApp, handle: string, status: string) {
  return eventually(
    `${handle} ${status}`,
    async () => {
      const message = await t.store.messages.findByAnyHandle(handle);
      return message?.status === status ? message : undefined;
    },
    10_000,
  );
}
