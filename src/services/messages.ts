import type { AccountRow, MessageRow } from '../db/rows.ts';
import type { MessageListFilter } from '../db/store.ts';
import { toIso } from '../domain/dates.ts';
import { ErrorCode } from '../domain/error-codes.ts';
import { toMessageObject } from '../domain/views.ts';
import { AppError } from './app-error.ts';
import type { ServiceDeps } from './deps.ts';

/** GET /accounts/messages: the page as JSON text (`{"messages":[...]}`). */
export async function listMessages(
  deps: ServiceDeps,
  account: AccountRow,
  query: { filter: MessageListFilter; limit: number; offset: number },
) {
  return `{"messages":${await deps.store.messages.listJson(account.id, query.filter, query.limit, query.offset, account)}}`;
}

/** Everyone in a message's conversation, the account's line last. */
export async function participantsOf(deps: ServiceDeps, message: MessageRow): Promise<string[]> {
  if (message.messageType === 'group' && message.groupId !== null) {
    const members = message.isOutbound ? (message.recipients ?? []) : await deps.store.groups.members(message.groupId);
    return [...members, message.lineNumber];
  }
  return [message.number, message.lineNumber];
}

/** GET /api/status: the Message object, with every status event received when asked. */
export async function getMessageStatus(deps: ServiceDeps, account: AccountRow, handle: string, withHistory: boolean) {
  const message = await deps.store.messages.findByHandle(account.id, handle);
  if (!message) throw new AppError(ErrorCode.notFound, `No message with handle ${handle}`);
  const body = toMessageObject(message, account, await participantsOf(deps, message));
  if (!withHistory) return body;
  const history = (await deps.store.messages.history(handle)).map((event) => ({
    status: event.status,
    applied: event.applied,
    implied: event.implied,
    reason: event.notAppliedReason,
    error_code: event.errorCode,
    error_message: event.errorMessage,
    source: event.source,
    received_at: toIso(event.receivedAt),
    repeats: event.repeats,
  }));
  return { ...body, history };
}
