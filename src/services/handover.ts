import type { MessageRow } from '../db/rows.ts';
import type { HandoverPosition, HandoverSender } from '../db/store.ts';
import { messageKey } from './batch-keys.ts';
import { upsertContact } from './contacts.ts';
import type { ServiceDeps } from './deps.ts';
import type { ProviderCredentials } from './provider.ts';
import { applyOrphanEvents, recordStatusInTransaction } from './record-status.ts';
import { inTransaction, inWriteTransaction, type WriteOptions } from './transactions.ts';

export type { HandoverPosition, HandoverSender };

/** What a transport needs to carry a message: addressing and content, nothing of the API's bookkeeping. */
export type OutboundMessage = {
  /** Ours: the transport dedupes by it, so handing the same message over twice sends it once. */
  handle: string;
  accountId: string;
  messageType: 'message' | 'group';
  /** The account's line it goes out on. */
  lineNumber: string;
  /** The end users: one for a single send, the members for a group send. */
  recipients: string[];
  content: string;
  mediaUrl: string;
  sendStyle: string;
  /** Our group id, for group sends. */
  groupId: string | null;
  /** The transport's id for that group, once it has told us one. */
  transportGroupId: string | null;
  seatId: string | null;
  /** The message this one answers, by the transport's handle for it when it has one. */
  replyTo: { handle: string; partIndex: number | null } | null;
  /** Relay mode: the account's own provider account, which carries the message; absent: the relay's. */
  upstream?: ProviderCredentials | undefined;
};

/** What the transport answers when it accepted a message. */
export type HandoverReceipt = { transportHandle: string; transportGroupId?: string | undefined };

/** The account's own provider credentials, read at each hand-over so that `accounts upstream set` applies to what is still queued. */
async function upstreamOf(deps: ServiceDeps, accountId: string): Promise<ProviderCredentials | undefined> {
  const account = await deps.store.accounts.findById(accountId);
  return account?.upstreamKeyId && account.upstreamSecret ? { keyId: account.upstreamKeyId, secret: account.upstreamSecret } : undefined;
}

async function toOutbound(deps: ServiceDeps, message: MessageRow): Promise<OutboundMessage> {
  const group = message.groupId === null ? undefined : await deps.store.groups.findById(message.accountId, message.groupId);
  const outbound = { ...outboundOf(message, group?.transportGroupId ?? null), upstream: await upstreamOf(deps, message.accountId) };
  if (outbound.replyTo === null) return outbound;
  // The provider knows the message answered by its own handle, not ours.
  const answered = await deps.store.messages.findByAnyHandle(outbound.replyTo.handle);
  return { ...outbound, replyTo: { ...outbound.replyTo, handle: answered?.transportHandle ?? outbound.replyTo.handle } };
}

/** What the transport is given of a stored message; `transportGroupId` is the transport's id of its group, if any. */
export function outboundOf(message: MessageRow, transportGroupId: string | null): OutboundMessage {
  return {
    handle: message.handle,
    accountId: message.accountId,
    messageType: message.messageType,
    lineNumber: message.lineNumber,
    recipients: message.messageType === 'group' ? (message.recipients ?? []) : [message.number],
    content: message.content,
    mediaUrl: message.mediaUrl,
    sendStyle: message.sendStyle,
    groupId: message.groupId,
    transportGroupId,
    seatId: message.seatId,
    replyTo: message.replyToHandle === null ? null : { handle: message.replyToHandle, partIndex: message.replyToPartIndex },
  };
}

/** The message, if it still waits for its hand-over (not yet accepted, not failed meanwhile). */
export async function messageAwaitingHandover(deps: ServiceDeps, handle: string): Promise<OutboundMessage | undefined> {
  const message = await deps.store.messages.findByAnyHandle(handle);
  if (!message?.isOutbound || message.handedOverAt !== null || message.status !== 'QUEUED') return undefined;
  return toOutbound(deps, message);
}

/** The account and line of a message, to queue it in its lane when whoever queued it did not say; undefined for no such message. */
export async function senderOf(deps: ServiceDeps, handle: string): Promise<HandoverSender | undefined> {
  const message = await deps.store.messages.findByAnyHandle(handle);
  return message && { accountId: message.accountId, lineNumber: message.lineNumber };
}

/** Each account and line with messages awaiting their hand-over. */
export function handoverSenders(deps: ServiceDeps): Promise<HandoverSender[]> {
  return deps.store.messages.handoverSenders();
}

/**
 * One account's line's messages awaiting their hand-over, in the order sent: a page of `limit`
 * after `after`, the last message of the previous page.
 */
export function awaitingHandoverFrom(
  deps: ServiceDeps,
  sender: HandoverSender,
  limit: number,
  after?: HandoverPosition,
): Promise<HandoverPosition[]> {
  return deps.store.messages.awaitingHandoverFrom(sender, limit, after);
}

/**
 * Messages accepted but never handed over, oldest first: what a restart must resume. Pass the
 * previous page's `cursor` to read the next page.
 */
export async function messagesAwaitingHandover(
  deps: ServiceDeps,
  limit: number,
  cursor = 0,
): Promise<{ messages: OutboundMessage[]; cursor: number }> {
  const rows = await deps.store.messages.awaitingHandover(limit, cursor);
  return { messages: await Promise.all(rows.map((message) => toOutbound(deps, message))), cursor: rows.at(-1)?.id ?? cursor };
}

/**
 * The transport accepted the message: remember its handle (and group id), then apply any status
 * events that arrived under that handle before we knew it.
 */
export async function recordHandover(
  deps: ServiceDeps,
  handle: string,
  receipt: HandoverReceipt,
  options: WriteOptions = {},
): Promise<void> {
  await inWriteTransaction(
    deps,
    options,
    { kind: 'hand-overs', keys: [messageKey(handle), messageKey(receipt.transportHandle)] },
    async (deps) => {
      const message = await deps.store.messages.findByAnyHandle(handle);
      if (!message) throw new Error(`handed over an unknown message ${handle}`);
      await deps.store.messages.markHandedOver(message.id, receipt.transportHandle, deps.clock.now());
      if (receipt.transportGroupId && message.groupId !== null) {
        const group = await deps.store.groups.findById(message.accountId, message.groupId);
        // Another of the account's groups already answering to this id keeps it: replies in it go there.
        const taken = await deps.store.groups.findByTransportGroupId(message.accountId, receipt.transportGroupId);
        if (group && group.transportGroupId === null && !taken)
          await deps.store.groups.setTransportGroupId(group.id, receipt.transportGroupId);
      }
      await applyOrphanEvents(deps, receipt.transportHandle);
    },
  );
}

/**
 * The transport refused the message for good, or every retry failed: the message ends in ERROR.
 * When the network said the recipient opted out, their contact on the account is opted out in the
 * same transaction, so later sends to them are refused before they reach the network.
 */
export async function failHandover(
  deps: ServiceDeps,
  handle: string,
  failure: { errorCode: number; errorMessage: string; source: string; recipientOptedOut?: boolean },
): Promise<void> {
  await inTransaction(deps, async (deps) => {
    await recordStatusInTransaction(deps, {
      handle,
      status: 'ERROR',
      errorCode: failure.errorCode,
      errorMessage: failure.errorMessage,
      source: failure.source,
    });
    if (!failure.recipientOptedOut) return;
    const message = await deps.store.messages.findByAnyHandle(handle);
    const account = message && (await deps.store.accounts.findById(message.accountId));
    if (message?.messageType === 'message' && account)
      await upsertContact(deps, account, message.number, { optedOut: true }, deps.clock.now());
  });
}
