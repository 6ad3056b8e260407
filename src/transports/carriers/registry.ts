import type { Logger } from 'pino';
import { type Config, carrierPolicyOf, carrierUrlOf } from '../../config.ts';
import { type CarrierName, carriersOf } from '../../domain/carriers.ts';
import { createMediaFetcher } from '../../outbound/media-fetch.ts';
import type { CarrierDirectory } from '../../services/carrier-directory.ts';
import type { ServiceDeps } from '../../services/deps.ts';
import { createBlueBubblesCarrier } from '../bluebubbles/carrier.ts';
import { createSmsGateCarrier } from '../smsgate/carrier.ts';
import { createTwilioCarrier } from '../twilio/carrier.ts';
import type { Carrier, CarrierFactory } from './carrier.ts';
import { createHealthTracker } from './health.ts';
import { createScrubber } from './scrub.ts';

const PUBLIC_ONLY = { allowPrivate: false, allowLinkLocal: false };

/** How a carrier registers: its factory here, under the name TEXTRELAY_TRANSPORT uses for it. */
const FACTORIES: Record<CarrierName, CarrierFactory> = {
  bluebubbles: createBlueBubblesCarrier,
  twilio: createTwilioCarrier,
  smsgate: createSmsGateCarrier,
};

/**
 * Builds the carriers TEXTRELAY_TRANSPORT names, in its order, and registers each in the
 * directory (so the app serves its webhooks and reports its health). No I/O until `start`.
 */
export function createConfiguredCarriers(config: Config, deps: ServiceDeps & { carriers: CarrierDirectory; log: Logger }): Carrier[] {
  const policy = carrierPolicyOf(config);
  const scrub = createScrubber([
    config.TEXTRELAY_BLUEBUBBLES_PASSWORD,
    config.TEXTRELAY_TWILIO_AUTH_TOKEN,
    config.TEXTRELAY_SMSGATE_PASSWORD,
    config.TEXTRELAY_SMSGATE_SIGNING_KEY,
    config.TEXTRELAY_SMSGATE_PASSWORD &&
      Buffer.from(`${config.TEXTRELAY_SMSGATE_USERNAME ?? ''}:${config.TEXTRELAY_SMSGATE_PASSWORD}`).toString('base64'),
    config.TEXTRELAY_TWILIO_AUTH_TOKEN &&
      Buffer.from(`${config.TEXTRELAY_TWILIO_ACCOUNT_SID}:${config.TEXTRELAY_TWILIO_AUTH_TOKEN}`).toString('base64'),
  ]);
  return carriersOf(config.TEXTRELAY_TRANSPORT).map((name) => {
    const factory = FACTORIES[name];
    const server = carrierUrlOf(config, name);
    // An attachment's URL comes in a message anyone can send: only the carrier's own server may be on the LAN.
    const fetchMedia = createMediaFetcher(PUBLIC_ONLY, { origins: server === undefined ? [] : [new URL(server).origin], policy });
    const carrier = factory({
      deps,
      config,
      log: deps.log.child({ carrier: name }),
      publicUrl: (config.TEXTRELAY_PUBLIC_URL ?? '').replace(/\/+$/, ''),
      policy,
      fetchMedia,
      health: createHealthTracker(name, deps.clock, scrub),
      scrub,
    });
    deps.carriers.register(carrier);
    return carrier;
  });
}
