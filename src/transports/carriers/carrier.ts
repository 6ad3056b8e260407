import type { Logger } from 'pino';
import type { Config } from '../../config.ts';
import type { OutboundPolicy } from '../../domain/address-policy.ts';
import type { MediaFetcher } from '../../domain/media-objects.ts';
import type { RegisteredCarrier } from '../../services/carrier-directory.ts';
import type { ServiceDeps } from '../../services/deps.ts';
import type { HandoverReceipt, OutboundMessage } from '../../services/handover.ts';
import type { HealthTracker } from './health.ts';

/**
 * The port every carrier implements (one folder per carrier under src/transports/). The carriers'
 * transport routes each message to the carrier of its line; what the carrier reports back (statuses,
 * inbound messages) it records through the services, like every other transport.
 */
export interface Carrier extends RegisteredCarrier {
  /**
   * Hands one message over; idempotent by `message.handle`. Throws `TransportRefusal` for a final no
   * (its message names the carrier and its code) and `TransportUnavailable` for "not now", which
   * the courier retries on TEXTRELAY_CARRIER_RETRY_SCHEDULE.
   */
  send(message: OutboundMessage): Promise<HandoverReceipt>;
  /**
   * Before textrelay serves: checks the carrier's account against the lines bound to it and points
   * the carrier's webhooks at textrelay. Throws `StartupError` (one line, exit 1) when it cannot serve.
   */
  start(): Promise<void>;
  /** Stops timers and waits for requests in flight. */
  stop(): Promise<void>;
  /** One cheap request that says whether the carrier answers and accepts the credentials (textrelay status). */
  probe(): Promise<void>;
}

/** What a carrier is built from. */
export type CarrierContext = {
  deps: ServiceDeps;
  config: Config;
  log: Logger;
  /** TEXTRELAY_PUBLIC_URL without a trailing slash: where the carrier calls textrelay and fetches its media. */
  publicUrl: string;
  /** The carrier's server may be on loopback or the LAN (the operator set it), never on link-local or metadata addresses. */
  policy: OutboundPolicy;
  /** Fetches a carrier's media URL (inbound attachments): from public addresses, or from the carrier's own server under `policy`. */
  fetchMedia: MediaFetcher;
  health: HealthTracker;
  /** Removes the carrier's secrets (password, token) from a text before it is logged, stored or shown. */
  scrub: (text: string) => string;
};

export type CarrierFactory = (context: CarrierContext) => Carrier;
