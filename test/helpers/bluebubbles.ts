/** textrelay's BlueBubbles carrier in-process against the fake server: its ingest served on loopback, a courier handing messages over. */
import { Hono } from 'hono';
import { type BlueBubblesCarrier, createBlueBubblesCarrier } from '../../src/transports/bluebubbles/carrier.ts';
import { INGEST_PATH } from '../../src/transports/bluebubbles/startup.ts';
import { createCourier } from '../../src/transports/courier.ts';
import type { Transport } from '../../src/transports/transport.ts';
import type { TestAccount, TestApp } from './app.ts';
import { type FakeBlueBubbles, startFakeBlueBubbles } from './fake-bluebubbles/server.ts';
import { LOOPBACK_ALLOWED } from './fixtures.ts';
import { serveOnLoopback } from './listen.ts';

export type BlueBubblesRig = {
  fake: FakeBlueBubbles;
  carrier: BlueBubblesCarrier;
  courier: ReturnType<typeof createCourier>;
  publicUrl: string;
  line: string;
  /** Stops the carrier and its courier and starts new ones on the same database and fake: a restart. */
  restart(): Promise<void>;
  close(): Promise<void>;
};

export async function startBlueBubblesRig(
  t: TestApp,
  account: TestAccount,
  options: { fake?: FakeBlueBubbles; retryDelaysMs?: number[]; password?: string } = {},
): Promise<BlueBubblesRig> {
  const fake = options.fake ?? (await startFakeBlueBubbles());
  const line = account.numbers[0]!;
  let carrier: BlueBubblesCarrier;
  let courier: ReturnType<typeof createCourier>;
  const ingress = new Hono();
  ingress.all(`${INGEST_PATH}/*`, (c) => carrier.ingest.fetch(new Request(c.req.url.replace(INGEST_PATH, ''), c.req.raw)));
  const served = await serveOnLoopback(ingress.fetch);

  function build() {
    carrier = createBlueBubblesCarrier(t.deps, {
      url: fake.url,
      password: options.password ?? fake.settings.password,
      publicUrl: served.url,
      readbackMs: 60_000,
      outboundPolicy: LOOPBACK_ALLOWED,
      fetchMedia: t.deps.fetchMedia,
      line: async () => line,
    });
    courier = createCourier(t.deps, carrier as unknown as Transport, { retryDelaysMs: options.retryDelaysMs ?? [20, 20], concurrency: 4 });
  }
  build();
  const rig: BlueBubblesRig = {
    fake,
    get carrier() {
      return carrier;
    },
    get courier() {
      return courier;
    },
    publicUrl: served.url,
    line,
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
  return rig;
}
