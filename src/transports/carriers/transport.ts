import { CARRIER_PROFILES, type CarrierName } from '../../domain/carriers.ts';
import { ErrorCode } from '../../domain/error-codes.ts';
import type { ServiceDeps } from '../../services/deps.ts';
import type { HandoverReceipt, OutboundMessage } from '../../services/handover.ts';
import { carrierOfLine } from '../../services/line-carriers.ts';
import { type Transport, TransportRefusal } from '../transport.ts';
import type { Carrier } from './carrier.ts';

/**
 * The transport of TEXTRELAY_TRANSPORT=bluebubbles|twilio|both: each message goes to the carrier
 * its line is bound to; a line bound to none (added before carriers were configured) goes to the
 * first configured carrier.
 */
export function createCarrierTransport(deps: ServiceDeps, carriers: readonly Carrier[]): Transport {
  const byName = new Map<CarrierName, Carrier>(carriers.map((carrier) => [carrier.name, carrier]));
  const fallback = carriers[0];
  if (!fallback) throw new Error('the carriers transport needs at least one carrier');

  async function carrierFor(message: OutboundMessage): Promise<Carrier> {
    const bound = await carrierOfLine(deps, message.lineNumber);
    if (bound === undefined) return fallback!;
    const carrier = byName.get(bound);
    if (carrier) return carrier;
    throw new TransportRefusal(
      ErrorCode.sendFailed,
      `Line ${message.lineNumber} is bound to ${CARRIER_PROFILES[bound].label}, which TEXTRELAY_TRANSPORT does not configure`,
    );
  }

  return {
    name: 'carriers',
    // A line bound to a carrier not configured has its own route: its sends are refused without waiting for a slot of another.
    async routeOf(lineNumber) {
      return (await carrierOfLine(deps, lineNumber)) ?? fallback.name;
    },
    async send(message: OutboundMessage): Promise<HandoverReceipt> {
      return (await carrierFor(message)).send(message);
    },
    // Each carrier's start is awaited by the background work before the courier resumes (startCarriers).
    start() {},
    async stop() {
      await Promise.all(carriers.map((carrier) => carrier.stop()));
    },
  };
}

/** Starts every carrier before textrelay serves; the first that cannot serve stops the start (StartupError). */
export async function startCarriers(carriers: readonly Carrier[]): Promise<void> {
  for (const carrier of carriers) await carrier.start();
}
