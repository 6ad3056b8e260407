import { decideStatus } from '../../domain/status.ts';
import { recordCarrierProblem } from '../../services/carrier-problems.ts';
import { describeFailure } from '../carriers/scrub.ts';
import { createUnsettledReadBack } from '../carriers/unsettled-readback.ts';
import { INBOX_PAGE, type SmsGateClient, SmsGateError } from './client.ts';
import { applySmsGateEvent, recordSmsGateStatus, type SmsGateEventContext } from './events.ts';
import { inboxEventOf, stateEventOf } from './mapping.ts';

/** Where the inbox read-back keeps the time it last read up to. */
const INBOX_MARK = 'inbox_read_until';
/** Each pass reads from this long before the last one: the phone's clock is not ours, and an SMS is dated when it was sent. */
export const INBOX_OVERLAP_MS = 60 * 60 * 1000;
/** Pages of the inbox one pass reads at most. */
const INBOX_PAGES_PER_PASS = 10;

export type SmsGateReadBackContext = SmsGateEventContext & {
  client: SmsGateClient;
  scrub: (text: string) => string;
  /** The lines SMSGate delivers. */
  lines: () => Promise<string[]>;
};

/** SMSGate itself did not answer (no answer, 5xx, 429, refused credentials); a 404 is that message's alone. */
function smsGateUnavailable(error: unknown): boolean {
  return !(error instanceof SmsGateError) || error.status >= 500 || error.status === 429 || error.status === 401 || error.status === 403;
}

/**
 * The phone retries a webhook for about two days, then drops it. Each pass reads back the
 * messages it has not settled (GET /messages/{id}) and, on the phone's own server, the SMS it
 * received since the previous pass (GET /inbox), and records both through the webhooks' path.
 */
export function createSmsGateReadBack(context: SmsGateReadBackContext) {
  const { deps, client, log, scrub } = context;

  const messages = createUnsettledReadBack({
    ...context,
    carrier: 'smsgate',
    itemOf: (message) => message.handle,
    fetchOne: (message) => client.message(message.transportHandle ?? message.handle),
    async applyOne(message, answer) {
      const event = stateEventOf(answer);
      // Where we have it already, or behind: nothing to record.
      if (event.kind !== 'status' || !decideStatus(message.status, event.status).applied) return false;
      return (await recordSmsGateStatus(context, message, event)) === 'applied';
    },
    unavailable: smsGateUnavailable,
  });

  /**
   * The SMS the phone received since the last pass read (less INBOX_OVERLAP_MS), each recorded
   * once by its id. The first pass only sets the mark: what the phone had before textrelay knew
   * it is not textrelay's. One SMS that cannot be recorded is written down and the mark stays, so
   * the next pass tries it again.
   */
  async function readInbox(): Promise<{ read: number; failed: number }> {
    const startedAt = deps.clock.now();
    const mark = Number(await deps.store.carrierState.get('smsgate', INBOX_MARK));
    const setMark = () => deps.store.carrierState.set('smsgate', INBOX_MARK, String(startedAt), startedAt);
    if (!Number.isFinite(mark) || mark <= 0) {
      await setMark();
      return { read: 0, failed: 0 };
    }
    const from = new Date(mark - INBOX_OVERLAP_MS);
    let read = 0;
    let failed = 0;
    for (let page = 0; ; page++) {
      if (page === INBOX_PAGES_PER_PASS) {
        log.warn({ read }, `the phone received more SMS since the last read-back than one pass reads (${read}): the oldest may be missed`);
        break;
      }
      const items = await client.inbox(from, page * INBOX_PAGE);
      context.health.reached();
      for (const item of items) {
        read += 1;
        try {
          await applySmsGateEvent(context, inboxEventOf(item));
        } catch (error) {
          failed += 1;
          const reason = describeFailure(error, scrub);
          log.warn({ id: item.id, reason }, 'SMSGate inbox read-back could not record one SMS; the next pass tries again');
          await recordCarrierProblem(deps, 'smsgate', {
            item: item.id,
            accountId: null,
            what: `An SMS from ${item.sender} could not be recorded: ${reason}`,
          }).catch(() => undefined);
        }
      }
      if (items.length < INBOX_PAGE) break;
    }
    if (failed === 0) await setMark();
    return { read, failed };
  }

  return {
    messages,
    /** The phone's inbox on its own server; a cloud or private server has none to read (C.5). */
    inbox: client.local ? readInbox : undefined,
  };
}
