import type { Logger } from 'pino';
import type { MessageRow } from '../../db/rows.ts';
import type { UnsettledCursor } from '../../db/store.ts';
import { CARRIER_PROFILES, type CarrierName } from '../../domain/carriers.ts';
import { itemsWithProblems, recordCarrierProblem, resolveCarrierProblems } from '../../services/carrier-problems.ts';
import type { ServiceDeps } from '../../services/deps.ts';
import type { HealthTracker } from './health.ts';
import { describeFailure } from './scrub.ts';

/** Messages read back per pass at most: a pass is this many GETs, one after another. */
export const READBACK_PER_PASS = 100;
/** A carrier may keep a message sent for good when the handset's network sends no receipt: read back this long after the send. */
export const READBACK_WINDOW_MS = 3 * 24 * 60 * 60 * 1000;
const PAGE = 50;
const START: UnsettledCursor = { dateSent: Number.MIN_SAFE_INTEGER, id: 0 };

export type ReadBackPass = { read: number; applied: number; failed: number; stoppedBy?: string };

/** Recording what the carrier said failed (the database): a failure of that message alone. */
class RecordFailure extends Error {
  constructor(cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
    this.name = 'RecordFailure';
  }
}

export type UnsettledReadBackContext<Answer> = {
  carrier: CarrierName;
  deps: ServiceDeps;
  /** The lines the carrier delivers. */
  lines: () => Promise<string[]>;
  health: HealthTracker;
  log: Logger;
  scrub: (text: string) => string;
  /** The carrier's id of a handed-over message. */
  itemOf: (message: MessageRow) => string;
  /** Asks the carrier where one handed-over message is. */
  fetchOne: (message: MessageRow) => Promise<Answer>;
  /** Records the carrier's answer as its event would have been; true when the message moved. */
  applyOne: (message: MessageRow, answer: Answer) => Promise<boolean>;
  /** The carrier itself did not answer (no answer, 5xx, 429, refused credentials): the rest of the pass would fail alike. */
  unavailable: (error: unknown) => boolean;
};

/**
 * Reads back the messages a carrier may have left unreported. Each pass takes the carrier's lines'
 * messages that are handed over and not settled (QUEUED or SENT, sent within READBACK_WINDOW_MS),
 * oldest first, at most READBACK_PER_PASS, from where the previous pass stopped (back to the oldest
 * once it reached the newest). A message the carrier refuses to answer for is a failure of that
 * message alone, noted in the carrier's health, its problems and the log, and the pass goes on;
 * when the carrier itself does not answer, the pass stops there and the next one resumes from it.
 */
export function createUnsettledReadBack<Answer>(context: UnsettledReadBackContext<Answer>) {
  const { carrier, deps, health, log, scrub, itemOf } = context;
  const label = CARRIER_PROFILES[carrier].label;
  let cursor = START;

  async function readPages(pass: ReadBackPass, troubled: ReadonlySet<string>, settled: Set<string>): Promise<ReadBackPass> {
    const numbers = await context.lines();
    const owners = new Set((await deps.store.lines.all()).filter((line) => numbers.includes(line.number)).map((line) => line.accountId));
    const since = deps.clock.now() - READBACK_WINDOW_MS;
    let visited = 0;
    while (visited < READBACK_PER_PASS) {
      const limit = Math.min(PAGE, READBACK_PER_PASS - visited);
      const page = await deps.store.messages.unsettled([...owners], numbers, since, cursor, limit);
      for (const message of page) {
        const item = itemOf(message);
        try {
          const answer = await context.fetchOne(message);
          health.reached();
          pass.read += 1;
          const moved = await context.applyOne(message, answer).catch((error: unknown) => {
            throw new RecordFailure(error);
          });
          if (moved) pass.applied += 1;
          if (troubled.has(item)) settled.add(item);
        } catch (error) {
          const reason = describeFailure(error, scrub);
          if (!(error instanceof RecordFailure) && context.unavailable(error)) {
            health.unreachable(reason);
            log.warn({ reason }, `${label} read-back stopped: ${label} did not answer; the next pass resumes here`);
            return { ...pass, stoppedBy: reason };
          }
          pass.failed += 1;
          health.failed(`read-back of ${item}: ${reason}`);
          await recordCarrierProblem(deps, carrier, {
            item,
            accountId: message.accountId,
            what: `The status of the SMS ${message.handle} could not be read back from ${label}: ${reason}`,
          }).catch(() => undefined);
          log.warn({ handle: message.handle, item, reason }, `${label} read-back could not read one message; going on`);
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
    const troubled = await itemsWithProblems(deps, carrier);
    const settled = new Set<string>();
    try {
      return await readPages({ read: 0, applied: 0, failed: 0 }, troubled, settled);
    } finally {
      await resolveCarrierProblems(deps, carrier, settled).catch(() => undefined);
    }
  };
}
