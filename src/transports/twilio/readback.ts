import type { Logger } from 'pino';
import type { MessageRow } from '../../db/rows.ts';
import type { UnsettledCursor } from '../../db/store.ts';
import { decideStatus } from '../../domain/status.ts';
import { itemsWithProblems, recordCarrierProblem, resolveCarrierProblems } from '../../services/carrier-problems.ts';
import type { ServiceDeps } from '../../services/deps.ts';
import { recordStatus } from '../../services/record-status.ts';
import type { HealthTracker } from '../carriers/health.ts';
import { describeFailure } from '../carriers/scrub.ts';
import type { TwilioClient } from './client.ts';
import { TwilioError } from './client.ts';
import { readBackEventOf, statusReportOf } from './mapping.ts';

/** Messages read back per pass at most: a pass is this many GETs, one after another. */
export const READBACK_PER_PASS = 100;
/** Twilio keeps a message `sent` for good when the handset's network sends no receipt: read back this long after the send. */
export const READBACK_WINDOW_MS = 3 * 24 * 60 * 60 * 1000;
const PAGE = 50;
const START: UnsettledCursor = { dateSent: Number.MIN_SAFE_INTEGER, id: 0 };

export type TwilioReadBackContext = {
  deps: ServiceDeps;
  client: Pick<TwilioClient, 'fetchMessage'>;
  /** The lines Twilio delivers. */
  lines: () => Promise<string[]>;
  health: HealthTracker;
  log: Logger;
  scrub: (text: string) => string;
};

export type ReadBackPass = { read: number; applied: number; failed: number; stoppedBy?: string };

/** Recording what Twilio said failed (the database): a failure of that message alone. */
class RecordFailure extends Error {
  constructor(cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
    this.name = 'RecordFailure';
  }
}

/** Twilio itself did not answer (no answer, 5xx, 429, a refused token): the rest of the pass would fail alike. */
function twilioUnavailable(error: unknown): boolean {
  if (error instanceof RecordFailure) return false;
  return !(error instanceof TwilioError) || error.status >= 500 || error.status === 429 || error.status === 401;
}

/**
 * Twilio never retries a status callback: one lost while textrelay was down would leave its
 * message SENT for good. Each pass fetches the messages on Twilio's lines that are handed over and
 * not settled (QUEUED or SENT, sent within READBACK_WINDOW_MS), oldest first, at most
 * READBACK_PER_PASS, from where the previous pass stopped (back to the oldest once it reached the
 * newest), and records what Twilio says as the callback would have. A message Twilio answers for
 * with a refusal (404: deleted) is a failure of that message alone, noted in the carrier's health
 * and the log, and the pass goes on; when Twilio itself does not answer, the pass stops there and
 * the next one resumes from that message.
 */
export function createTwilioReadBack(context: TwilioReadBackContext) {
  const { deps, client, health, log, scrub } = context;
  let cursor = START;

  /** What Twilio says of one message, recorded as its callback would have been; the fetch's failure is thrown as it came. */
  async function readOne(message: MessageRow, pass: ReadBackPass): Promise<void> {
    const resource = await client.fetchMessage(message.transportHandle ?? '');
    health.reached();
    pass.read += 1;
    const event = readBackEventOf(resource);
    // Where we have it already, or behind (queued at Twilio while we have it sent): nothing to record.
    if (event.kind === 'ignored' || !decideStatus(message.status, event.status).applied) return;
    const outcome = await recordStatus(deps, statusReportOf(message.handle, event)).catch((error: unknown) => {
      throw new RecordFailure(error);
    });
    if (outcome === 'applied') pass.applied += 1;
  }

  /** The pass's pages; an item that had a problem and is read now is added to `settled`. */
  async function readPages(pass: ReadBackPass, troubled: ReadonlySet<string>, settled: Set<string>): Promise<ReadBackPass> {
    const numbers = await context.lines();
    const owners = new Set((await deps.store.lines.all()).filter((line) => numbers.includes(line.number)).map((line) => line.accountId));
    const since = deps.clock.now() - READBACK_WINDOW_MS;
    let visited = 0;
    while (visited < READBACK_PER_PASS) {
      const limit = Math.min(PAGE, READBACK_PER_PASS - visited);
      const page = await deps.store.messages.unsettled([...owners], numbers, since, cursor, limit);
      for (const message of page) {
        try {
          await readOne(message, pass);
          const item = message.transportHandle ?? message.handle;
          if (troubled.has(item)) settled.add(item);
        } catch (error) {
          const reason = describeFailure(error, scrub);
          if (twilioUnavailable(error)) {
            health.unreachable(reason);
            log.warn({ reason }, 'Twilio read-back stopped: Twilio did not answer; the next pass resumes here');
            return { ...pass, stoppedBy: reason };
          }
          pass.failed += 1;
          health.failed(`read-back of ${message.transportHandle}: ${reason}`);
          await recordCarrierProblem(deps, 'twilio', {
            item: message.transportHandle ?? message.handle,
            accountId: message.accountId,
            what: `The status of the SMS ${message.handle} could not be read back from Twilio: ${reason}`,
          }).catch(() => undefined);
          log.warn(
            { handle: message.handle, sid: message.transportHandle, reason },
            'Twilio read-back could not read one message; going on',
          );
        }
        cursor = { dateSent: message.dateSent, id: message.id };
        visited += 1;
      }
      if (page.length < limit) {
        // The newest was reached: the next pass starts again from the oldest.
        cursor = START;
        break;
      }
    }
    return pass;
  }

  return async function readBack(): Promise<ReadBackPass> {
    const troubled = await itemsWithProblems(deps, 'twilio');
    const settled = new Set<string>();
    try {
      return await readPages({ read: 0, applied: 0, failed: 0 }, troubled, settled);
    } finally {
      await resolveCarrierProblems(deps, 'twilio', settled).catch(() => undefined);
    }
  };
}
