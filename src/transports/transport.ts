import type { TransportKind } from '../domain/carriers.ts';
import type { HandoverReceipt, OutboundMessage } from '../services/handover.ts';

/**
 * A way out to the phone network. `send` hands one message over and resolves once the transport
 * has accepted it; what happens next comes back through the services (`recordStatus`,
 * `receiveInbound`/`receiveFromTransport`), from timers (sandbox) or from `/webhooks/*` (upstream).
 */
export interface Transport {
  readonly name: TransportKind;
  /**
   * Must be idempotent by `message.handle`: after a crash the same message may be handed over
   * again. Throws `TransportRefusal` for a final no; any other error is retried.
   */
  send(message: OutboundMessage): Promise<HandoverReceipt>;
  /**
   * Which of the transport's ways out a line's messages take (the carrier's name): the courier gives
   * each its own slots, so a slow one never holds back another. Absent: the transport is one way out.
   */
  routeOf?(lineNumber: string): Promise<string>;
  /** Resumes the transport's own pending work (for the sandbox: the planned steps in the database). */
  start(): void;
  /** Stops timers and waits for work in flight. */
  stop(): Promise<void>;
}

/**
 * The transport said no for good (an upstream 4xx): the message fails with this code, no retry.
 * `recipientOptedOut`: the network says the recipient opted out of this sender (Twilio 21610), so
 * the opt-out is recorded with the failure, as an inbound STOP would.
 */
export class TransportRefusal extends Error {
  readonly recipientOptedOut: boolean;
  constructor(
    readonly errorCode: number,
    message: string,
    options: { recipientOptedOut?: boolean } = {},
  ) {
    super(message);
    this.name = 'TransportRefusal';
    this.recipientOptedOut = options.recipientOptedOut ?? false;
  }
}

/**
 * The transport could not take the message now (its server down, rate limited, a 5xx): the courier
 * retries, and once its schedule is spent fails the message with this reason.
 */
export class TransportUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TransportUnavailable';
  }
}
