import type { Logger } from 'pino';
import type { MessageRow } from '../../db/rows.ts';
import type { ServiceDeps } from '../../services/deps.ts';
import { receiveFromTransport } from '../../services/receive-inbound.ts';
import { type RecordOutcome, recordStatus } from '../../services/record-status.ts';
import type { HealthTracker } from '../carriers/health.ts';
import type { SmsGateEvent, SmsGateStatusEvent } from './mapping.ts';

export type SmsGateEventContext = {
  deps: ServiceDeps;
  health: HealthTracker;
  log: Logger;
  /** The line bound to SMSGate, when there is one: a phone has one number. */
  line: () => Promise<string | undefined>;
};

/**
 * Records one of the phone's events, from its webhook or from a read-back, through the same
 * idempotent paths: a status of one of our messages (the message and event once), or an SMS a
 * person sent the phone (its id once). A status for a message textrelay did not send (another
 * client of the same phone) is ignored; an SMS while no line is bound to SMSGate is kept unrouted.
 */
export async function applySmsGateEvent(context: SmsGateEventContext, event: SmsGateEvent): Promise<'recorded' | 'ignored'> {
  const { deps, health, log } = context;
  if (event.kind === 'ignored') {
    log.info({ reason: event.reason }, 'SMSGate event ignored');
    return 'ignored';
  }
  const line = await context.line();
  if (event.kind === 'inbound') {
    health.event(line);
    await receiveFromTransport(
      deps,
      {
        from: event.from,
        toNumber: line ?? '',
        content: event.content,
        mediaUrl: '',
        service: 'SMS',
        source: 'smsgate',
        transportHandle: event.handle,
      },
      { batched: true },
    );
    return 'recorded';
  }
  const message = await deps.store.messages.findByAnyHandle(event.handle);
  if (!message?.isOutbound) {
    log.info({ messageId: event.handle }, 'SMSGate status for a message textrelay did not send: ignored');
    return 'ignored';
  }
  await recordSmsGateStatus(context, message, event);
  return 'recorded';
}

/** A status of one of our messages, recorded once per message and event; `message` is its row, read already. */
export function recordSmsGateStatus(
  context: SmsGateEventContext,
  message: Pick<MessageRow, 'handle' | 'lineNumber'>,
  event: SmsGateStatusEvent,
): Promise<RecordOutcome> {
  context.health.event(message.lineNumber);
  if (event.errorMessage !== null) context.health.lineFailed(event.errorMessage, message.lineNumber);
  return recordStatus(
    context.deps,
    {
      handle: message.handle,
      status: event.status,
      errorCode: event.errorCode,
      errorMessage: event.errorMessage,
      wasDowngraded: true,
      source: 'smsgate',
      sourceEventId: event.eventId,
      line: message.lineNumber,
    },
    { batched: true },
  );
}
