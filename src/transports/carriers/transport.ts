import type { CarrierName } from '../../domain/carriers.ts';
import { ErrorCode } from '../../domain/error-codes.ts';
import type { ServiceDeps } from '../../services/deps.ts';
import type { HandoverReceipt, OutboundMessage } from '../../services/handover.ts';
import { carrierOfLine, unconfiguredCarrierProblem } from '../../services/line-carriers.ts';
import { type Transport, TransportRefusal } from '../transport.ts';
import type { Carrier } from './carrier.ts';

/**
 * The transport of TEXTRELAY_TRANSPORT=bluebubbles|twilio|both: each message goes to the carrier
 * its line is bound to. A line bound to none (added for the sandbox), bound to a carrier not
 * configured, or one its carrier cannot serve now is refused: never sent out another way.
 */
export function createCarrierTransport(deps: ServiceDeps, carriers: readonly Carrier[]): Transport {
  const byName = new Map<CarrierName, Carrier>(carriers.map((carrier) => [carrier.name, carrier]));
  if (carriers.length === 0) throw new Error('the carriers transport needs at least one carrier');

  async function carrierFor(message: OutboundMessage): Promise<Carrier> {
    const bound = await carrierOfLine(deps, message.lineNumber);
    const carrier = bound && byName.get(bound);
    const reason = carrier
      ? deps.carriers?.offlineReason(message.lineNumber)
      : unconfiguredCarrierProblem(bound ?? null, message.lineNumber);
    if (carrier && reason === undefined) return carrier;
    throw new TransportRefusal(ErrorCode.sendFailed, `Line ${message.lineNumber} is ${reason}`);
  }

  return {
    name: 'carriers',
    // A line bound to no carrier has a route of its own: its sends are refused without waiting for a carrier's slot.
    async routeOf(lineNumber) {
      return (await carrierOfLine(deps, lineNumber)) ?? 'unbound';
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

/** Starts every carrier before textrelay serves; one that cannot serve at all stops the start (StartupError), a line it cannot serve goes OFFLINE. */
export async function startCarriers(carriers: readonly Carrier[]): Promise<void> {
  for (const carrier of carriers) await carrier.start();
}
