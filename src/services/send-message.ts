import type { AccountRow, MessageRow } from '../db/rows.ts';
import type { MessageInsert } from '../db/store.ts';
import { ErrorCode } from '../domain/error-codes.ts';
import type { SendStyle } from '../domain/limits.ts';
import { type MessageView, previewOf, toMessageObject } from '../domain/views.ts';
import { AppError } from './app-error.ts';
import { groupKey, idempotencyKeys, personKey } from './batch-keys.ts';
import { contactOfSend, refuseIfOptedOut, refuseOptedOut } from './contacts.ts';
import type { ServiceDeps } from './deps.ts';
import { requireGroupPlan, resolveGroupForSend } from './groups.ts';
import { type StoredResponse, withIdempotency } from './idempotency.ts';
import { timeOrderedUuid } from './ids.ts';
import { chooseLineForEndUser, requireOwnLine } from './lines.ts';
import { type FirstSendWrites, recordQueued } from './record-status.ts';
import { inBatchedTransaction, inTransaction } from './transactions.ts';

/** What every send carries, already validated and normalized by the HTTP layer. */
type MessageBody = {
  content?: string | undefined;
  mediaUrl?: string | undefined;
  sendStyle?: SendStyle | undefined;
  statusCallback?: string | undefined;
  fromNumber?: string | undefined;
  replyTo?: { message_handle: string; part_index?: number | undefined } | undefined;
  seatId?: string | undefined;
};

export type SendMessageInput = MessageBody & { number: string };
export type SendGroupMessageInput = MessageBody & { numbers?: string[] | undefined; groupId?: string | undefined };

/** Accepted, not yet delivered: the contract answers sends with 202. */
const ACCEPTED = 202;

async function insertQueuedMessage(
  deps: ServiceDeps,
  account: AccountRow,
  body: MessageBody,
  addressing: Pick<MessageRow, 'messageType' | 'lineNumber' | 'number' | 'recipients' | 'contactId' | 'groupId'>,
  now: number,
  first?: FirstSendWrites,
): Promise<MessageRow> {
  const handle = timeOrderedUuid();
  const transportHandle = deps.transportAtSend.handleAtSend(handle);
  const content = body.content ?? '';
  const mediaUrl = body.mediaUrl ?? '';
  const row: MessageInsert = {
    handle,
    accountId: account.id,
    isOutbound: true,
    status: 'QUEUED',
    content,
    mediaUrl,
    sendStyle: body.sendStyle ?? '',
    statusCallback: body.statusCallback ?? null,
    replyToHandle: body.replyTo?.message_handle ?? null,
    replyToPartIndex: body.replyTo?.part_index ?? null,
    seatId: body.seatId ?? null,
    dateSent: now,
    dateUpdated: now,
    transportHandle: transportHandle ?? null,
    handedOverAt: transportHandle === undefined ? null : now,
    ...addressing,
  };
  const contact = addressing.contactId === null ? undefined : { id: addressing.contactId, previewText: previewOf(content, mediaUrl) };
  const message = await recordQueued(deps, account, row, contact, now, first);
  await deps.transportAtSend.stored(deps, message);
  return message;
}

/** A send answers one of the account's own messages or none; checked before the send writes anything. */
async function requireOwnReplyTarget(deps: ServiceDeps, account: AccountRow, body: MessageBody): Promise<void> {
  const handle = body.replyTo?.message_handle;
  if (handle !== undefined && !(await deps.store.messages.findByHandle(account.id, handle))) {
    throw new AppError(ErrorCode.validation, `reply_to.message_handle ${handle} is not one of this account's messages`);
  }
}

/** After the send committed: the transport hears of it (a replayed idempotent answer changes nothing for it). */
function handOver(deps: ServiceDeps, account: AccountRow, response: StoredResponse<MessageView>): StoredResponse<MessageView> {
  deps.transportAtSend.committed(deps, response.body.message_handle, { accountId: account.id, lineNumber: response.body.from_number });
  deps.notify.accountActivity?.(account.id);
  return response;
}

/** A send's writes; call inside a transaction; nothing is told yet. */
async function storeMessage(
  deps: ServiceDeps,
  account: AccountRow,
  input: SendMessageInput,
  idempotencyKey?: string,
): Promise<StoredResponse<MessageView>> {
  return withIdempotency(deps, account, idempotencyKey, { operation: 'send-message', input }, async (deps) => {
    await deps.sendRateLimiter.consume(account.id);
    await requireOwnReplyTarget(deps, account, input);
    const now = deps.clock.now();
    // Refused before anything is written; the contact row and pin it reads are the ones the send needs.
    const { contact: known, pinnedLine } = await deps.store.contacts.findWithPin(account.id, input.number);
    refuseOptedOut(known, input.number);
    const { line: lineNumber, newPin } = await chooseLineForEndUser(deps, account, input.number, input.fromNumber, { line: pinnedLine });
    // A first send's contact and pin are written with the message, in its whole write.
    const { contact, created } = await contactOfSend(deps, account, input.number, now, known, pinnedLine ?? lineNumber);
    const first: FirstSendWrites = {
      newContact: created && { row: created.row, accountEvent: created.accountEvent },
      pin: newPin ? { endUserNumber: input.number } : undefined,
      callbacks: created?.callbacks ?? [],
    };
    const message = await insertQueuedMessage(
      deps,
      account,
      input,
      { messageType: 'message', lineNumber, number: input.number, recipients: null, contactId: contact.id, groupId: null },
      now,
      first,
    );
    return { httpStatus: ACCEPTED, body: toMessageObject(message, account, [input.number, lineNumber]) };
  });
}

async function storeGroupMessage(
  deps: ServiceDeps,
  account: AccountRow,
  input: SendGroupMessageInput,
  idempotencyKey?: string,
): Promise<StoredResponse<MessageView>> {
  requireGroupPlan(account);
  return withIdempotency(deps, account, idempotencyKey, { operation: 'send-group-message', input }, async (deps) => {
    await deps.sendRateLimiter.consume(account.id);
    await requireOwnReplyTarget(deps, account, input);
    const now = deps.clock.now();
    // Checked before the group is found or created: a refused send writes nothing, not even rolled-back rows.
    if (input.fromNumber !== undefined) await requireOwnLine(deps, account, input.fromNumber);
    // Opted-out people are refused before a group of them would be created; a group_id's members once it is read.
    for (const number of input.numbers ?? []) await refuseIfOptedOut(deps, account.id, number);
    const { group, members } = await resolveGroupForSend(deps, account, input, now);
    if (input.numbers === undefined) for (const member of members) await refuseIfOptedOut(deps, account.id, member);
    const { lineNumber } = group;
    const message = await insertQueuedMessage(
      deps,
      account,
      input,
      { messageType: 'group', lineNumber, number: '', recipients: members, contactId: null, groupId: group.id },
      now,
    );
    return { httpStatus: ACCEPTED, body: toMessageObject(message, account, [...members, lineNumber]) };
  });
}

/** Sends at once, committing alone: for scripts and tests that send outside a request. */
export async function sendMessage(
  deps: ServiceDeps,
  account: AccountRow,
  input: SendMessageInput,
  idempotencyKey?: string,
): Promise<StoredResponse<MessageView>> {
  return handOver(deps, account, await inTransaction(deps, async (deps) => storeMessage(deps, account, input, idempotencyKey)));
}

export async function sendGroupMessage(
  deps: ServiceDeps,
  account: AccountRow,
  input: SendGroupMessageInput,
  idempotencyKey?: string,
): Promise<StoredResponse<MessageView>> {
  return handOver(deps, account, await inTransaction(deps, async (deps) => storeGroupMessage(deps, account, input, idempotencyKey)));
}

/**
 * Sends in the group commit's next batch (the API's way: under load, one COMMIT for many sends);
 * answers, and tells the transport, only once the batch committed.
 */
export async function sendMessageInBatch(
  deps: ServiceDeps,
  account: AccountRow,
  input: SendMessageInput,
  idempotencyKey?: string,
): Promise<StoredResponse<MessageView>> {
  const keys = [personKey(input.number), ...idempotencyKeys(account, idempotencyKey)];
  return handOver(
    deps,
    account,
    await inBatchedTransaction(deps, { kind: 'sends', keys }, async (deps) => storeMessage(deps, account, input, idempotencyKey)),
  );
}

export async function sendGroupMessageInBatch(
  deps: ServiceDeps,
  account: AccountRow,
  input: SendGroupMessageInput,
  idempotencyKey?: string,
): Promise<StoredResponse<MessageView>> {
  const keys = [
    groupKey(input.groupId ?? [...(input.numbers ?? [])].sort().join(' ')),
    ...(input.numbers ?? []).map(personKey),
    ...idempotencyKeys(account, idempotencyKey),
  ];
  return handOver(
    deps,
    account,
    await inBatchedTransaction(deps, { kind: 'sends', keys }, async (deps) => storeGroupMessage(deps, account, input, idempotencyKey)),
  );
}
