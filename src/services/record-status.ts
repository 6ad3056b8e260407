import type { AccountRow, MessageRow } from '../db/rows.ts';
import type { MessageInsert, OutboxEntry, SendWrite, StatusEventInsert, StatusUpdate } from '../db/store.ts';
import { DELIVERY_ERROR_MESSAGES, ErrorCode } from '../domain/error-codes.ts';
import { decideStatus, type MessageStatus, type NotAppliedReason } from '../domain/status.ts';
import { withStorableText } from '../domain/storable-text.ts';
import { accountEvent } from './account-events.ts';
import { messageKey } from './batch-keys.ts';
import { reportedByItsCarrier } from './carrier-reports.ts';
import type { ServiceDeps } from './deps.ts';
import { timeOrderedUuid } from './ids.ts';
import { asInserted, statusAudience, statusCallbacks } from './status-callbacks.ts';
import { inWriteTransaction, type WriteOptions } from './transactions.ts';
import { reportedByItsProvider } from './upstream-credentials.ts';

/** A status event as a transport (or the ingest endpoint) reports it. */
export type StatusReport = {
  /** Our handle or the transport's. */
  handle: string;
  status: MessageStatus;
  errorCode?: number | null | undefined;
  errorMessage?: string | null | undefined;
  /** Known once the network chose iMessage or SMS; absent means "no news". */
  wasDowngraded?: boolean | null | undefined;
  /** Who reports it: a transport's name. */
  source: string;
  /** The reporter's id for this event (an ingested webhook-id): the same id twice is one event. */
  sourceEventId?: string | null | undefined;
  /** The provider accounts that signed it (an ingested callback); they report only on their own tenants' messages. Unset: any. */
  reportedBy?: ReadonlySet<string> | undefined;
  /** The line the carrier says the message went out on (Twilio's `From`); a message of another line ignores the report. */
  line?: string | undefined;
};

export type RecordOutcome =
  | 'applied' // the message moved (one or more steps, each with its callback queued)
  | 'not_applied' // kept in the history, but stale, duplicate or after a final status
  | 'duplicate_event' // the very same event (same source event id) was recorded before
  | 'unknown_handle' // kept until a message with that handle appears
  | 'other_carrier'; // a carrier's report on a message of another carrier or line: ignored, nothing kept

function newEventId(): string {
  return `evt_${timeOrderedUuid()}`;
}

async function insertEvent(deps: ServiceDeps, event: Omit<StatusEventInsert, 'id'>): Promise<boolean> {
  return deps.store.messages.insertStatusEvent({ id: newEventId(), ...event });
}

/** A first send's writes besides the message's: the end user's new contact (and its callbacks) and pin. */
export type FirstSendWrites = Pick<SendWrite, 'newContact' | 'pin'> & { callbacks: readonly OutboxEntry[] };

/**
 * Writes a send's QUEUED message with its QUEUED event, its account event, (for a message to one
 * person) its contact's conversation summary and its QUEUED callbacks as one whole write, with
 * `first`'s writes. Call inside the sending transaction.
 */
export async function recordQueued(
  deps: ServiceDeps,
  account: AccountRow,
  row: MessageInsert,
  contact: { id: string; previewText: string } | undefined,
  now: number,
  first: FirstSendWrites = { callbacks: [] },
): Promise<MessageRow> {
  const queued = asInserted(row);
  const callbacks = [...first.callbacks, ...statusCallbacks(queued, await statusAudience(deps, queued, account))];
  const message = await deps.store.wholeWrites.send({
    message: row,
    event: {
      id: newEventId(),
      messageHandle: row.handle,
      status: 'QUEUED',
      errorCode: null,
      errorMessage: null,
      source: 'api',
      applied: true,
      implied: false,
      notAppliedReason: null,
      receivedAt: now,
    },
    accountEvent: accountEvent(
      account.id,
      'message.created',
      {
        message_handle: row.handle,
        number: row.number,
        from_number: row.lineNumber,
        is_outbound: true,
        status: row.status,
        group_id: row.groupId ?? null,
      },
      now,
    ),
    contact,
    newContact: first.newContact,
    pin: first.pin,
    callbacks,
  });
  if (callbacks.length > 0) deps.notify.outboxWritten();
  return message;
}

async function notApplied(
  deps: ServiceDeps,
  message: MessageRow,
  report: StatusReport,
  reason: NotAppliedReason,
  now: number,
): Promise<RecordOutcome> {
  const event = {
    messageHandle: message.handle,
    status: report.status,
    errorCode: report.errorCode ?? null,
    errorMessage: report.errorMessage ?? null,
    source: report.source,
  };
  // Without an id of its own, a report the history holds already is that event again: counted, not kept twice.
  if (!report.sourceEventId && (await deps.store.messages.countRepeat(event))) return 'not_applied';
  const inserted = await insertEvent(deps, {
    ...event,
    sourceEventId: report.sourceEventId ?? null,
    applied: false,
    implied: false,
    notAppliedReason: reason,
    receivedAt: now,
  });
  return inserted ? 'not_applied' : 'duplicate_event';
}

/** Applies a report to a known message. Call inside a transaction. */
async function applyReport(deps: ServiceDeps, message: MessageRow, report: StatusReport, now: number): Promise<RecordOutcome> {
  const decision = decideStatus(message.status, report.status);
  if (!decision.applied) return notApplied(deps, message, report, decision.reason, now);

  const audience = await statusAudience(deps, message);
  let current = message;
  for (const step of decision.steps) {
    const failed = step.status === 'ERROR';
    const errorCode = failed ? (report.errorCode ?? ErrorCode.sendFailed) : null;
    const update: StatusUpdate = {
      status: step.status,
      errorCode,
      errorMessage: failed ? (report.errorMessage ?? DELIVERY_ERROR_MESSAGES[errorCode ?? 0] ?? null) : null,
      wasDowngraded: report.wasDowngraded ?? current.wasDowngraded,
      // A transport's clock is not ours: date_updated never moves backwards.
      dateUpdated: Math.max(now, current.dateUpdated),
    };
    const previousStatus = current.status;
    const moved = { ...current, ...update };
    const callbacks = statusCallbacks(moved, audience);
    const inserted = await deps.store.wholeWrites.statusStep({
      messageId: current.id,
      update,
      event: {
        id: newEventId(),
        messageHandle: message.handle,
        status: step.status,
        errorCode: update.errorCode,
        errorMessage: update.errorMessage,
        source: report.source,
        sourceEventId: step.implied ? null : (report.sourceEventId ?? null),
        applied: true,
        implied: step.implied,
        notAppliedReason: null,
        receivedAt: now,
      },
      accountEvent: accountEvent(
        current.accountId,
        'message.updated',
        { message_handle: current.handle, status: step.status, previous_status: previousStatus, error_code: update.errorCode },
        now,
      ),
      callbacks,
    });
    // The unique index on applied events disagrees with decideStatus: roll back rather than call back twice.
    if (!inserted) throw new Error(`status ${step.status} of ${message.handle} was already applied`);
    current = moved;
    if (callbacks.length > 0) deps.notify.outboxWritten();
  }
  return 'applied';
}

async function carriedByReporter(deps: ServiceDeps, accountId: string, reportedBy: ReadonlySet<string> | undefined): Promise<boolean> {
  if (reportedBy === undefined) return true;
  const account = await deps.store.accounts.findById(accountId);
  return account !== undefined && reportedByItsProvider(deps, account, reportedBy);
}

/**
 * Records a status report inside the caller's transaction. Text neither backend can store (a NUL,
 * half a surrogate pair) in a handle, an event id or an error is kept with U+FFFD in its place.
 */
export async function recordStatusInTransaction(deps: ServiceDeps, reported: StatusReport): Promise<RecordOutcome> {
  const report = withStorableText(reported);
  const now = deps.clock.now();
  // Locked: with several instances, a message's status changes (and their callbacks' order) take turns.
  const target = await deps.store.messages.findReportTarget(report.handle, report.source, report.sourceEventId || null);
  if (target.seen) return 'duplicate_event';
  const { message } = target;
  if (message && !(await reportedByItsCarrier(deps, message, report))) {
    deps.log.info({ source: report.source, handle: message.handle }, 'a carrier reported on a message it does not carry: ignored');
    return 'other_carrier';
  }
  // Another provider account's message is unknown to this one, as a handle it never gave out.
  if (message && (await carriedByReporter(deps, message.accountId, report.reportedBy))) {
    const outcome = await applyReport(deps, message, report, now);
    // Applied or not, the event joined the message's history, which the inbox shows.
    if (outcome !== 'duplicate_event') deps.notify.accountActivity?.(message.accountId);
    return outcome;
  }
  const kept = await deps.store.orphans.insert({
    transportHandle: report.handle,
    status: report.status,
    errorCode: report.errorCode ?? null,
    errorMessage: report.errorMessage ?? null,
    wasDowngraded: report.wasDowngraded ?? null,
    source: report.source,
    sourceEventId: report.sourceEventId ?? null,
    receivedAt: now,
  });
  return kept ? 'unknown_handle' : 'duplicate_event';
}

/**
 * The one way a status change enters the database: event, decision, message and callback in one
 * transaction, so a crash leaves either all of them or none.
 */
export async function recordStatus(deps: ServiceDeps, report: StatusReport, options: WriteOptions = {}): Promise<RecordOutcome> {
  return inWriteTransaction(deps, options, { kind: 'status events', keys: [messageKey(report.handle)] }, (deps) =>
    recordStatusInTransaction(deps, report),
  );
}

/** Applies the events that arrived under `transportHandle` before the message was known by it. Call inside a transaction. */
export async function applyOrphanEvents(deps: ServiceDeps, transportHandle: string): Promise<void> {
  for (const orphan of await deps.store.orphans.take(transportHandle)) {
    await recordStatusInTransaction(deps, {
      handle: transportHandle,
      status: orphan.status,
      errorCode: orphan.errorCode,
      errorMessage: orphan.errorMessage,
      wasDowngraded: orphan.wasDowngraded,
      source: orphan.source,
      sourceEventId: orphan.sourceEventId,
    });
  }
}
