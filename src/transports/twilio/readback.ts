import type { Logger } from 'pino';
import { decideStatus } from '../../domain/status.ts';
import type { ServiceDeps } from '../../services/deps.ts';
import { recordStatus } from '../../services/record-status.ts';
import type { HealthTracker } from '../carriers/health.ts';
import { createUnsettledReadBack } from '../carriers/unsettled-readback.ts';
import type { TwilioClient } from './client.ts';
import { TwilioError } from './client.ts';
import { readBackEventOf, statusReportOf } from './mapping.ts';

export type TwilioReadBackContext = {
  deps: ServiceDeps;
  client: Pick<TwilioClient, 'fetchMessage'>;
  /** The lines Twilio delivers. */
  lines: () => Promise<string[]>;
  health: HealthTracker;
  log: Logger;
  scrub: (text: string) => string;
};

/** Twilio itself did not answer (no answer, 5xx, 429, a refused token); a 404 (deleted) is that message's alone. */
function twilioUnavailable(error: unknown): boolean {
  return !(error instanceof TwilioError) || error.status >= 500 || error.status === 429 || error.status === 401;
}

/**
 * Twilio never retries a status callback: one lost while textrelay was down would leave its
 * message SENT for good. Each pass fetches the unsettled messages on Twilio's lines with
 * GET Messages/{sid}.json and records what Twilio says as the callback would have.
 */
export function createTwilioReadBack(context: TwilioReadBackContext) {
  const { deps, client } = context;
  return createUnsettledReadBack({
    ...context,
    carrier: 'twilio',
    itemOf: (message) => message.transportHandle ?? message.handle,
    fetchOne: (message) => client.fetchMessage(message.transportHandle ?? ''),
    async applyOne(message, resource) {
      const event = readBackEventOf(resource);
      // Where we have it already, or behind (queued at Twilio while we have it sent): nothing to record.
      if (event.kind === 'ignored' || !decideStatus(message.status, event.status).applied) return false;
      return (await recordStatus(deps, statusReportOf(message.handle, event))) === 'applied';
    },
    unavailable: twilioUnavailable,
  });
}
