import { randomUUID } from 'node:crypto';
import { ErrorCode } from '../domain/error-codes.ts';
import { memberKeyOf } from '../domain/groups.ts';
import { previewOf } from '../domain/views.ts';
import { toReceivePayload, type InboundService } from '../domain/webhook-payloads.ts';
import type { AccountRow, GroupRow, MessageRow } from '../db/rows.ts';
import { AppError } from './app-error.ts';
import { ensureContact } from './contacts.ts';
import type { ServiceDeps } from './deps.ts';
import { leastLoadedLine, lineForEndUser } from './lines.ts';
import { newWebhookId } from './record-status.ts';
import { timeOrderedUuid } from './ids.ts';

/** An end user's message to an account, already validated (E.164 sender, content or media). */
export type InboundMessage = {
  from: string;
  content: string;
  mediaUrl: string;
  service: InboundService;
  /** Who reports it: the transport's name. */
  source: string;
  /** The transport's id for the message: the same id twice is one message. */
  transportHandle?: string | undefined;
};

export type ReceiveOutcome = { message: MessageRow; created: boolean };

type Conversation = { lineNumber: string; contactId: string | null; group: GroupRow | null; members: string[] };

function insertInbound(deps: ServiceDeps, account: AccountRow, input: InboundMessage, conversation: Conversation, now: number): MessageRow {
  const message = deps.store.messages.insert({
    handle: timeOrderedUuid(),
    accountId: account.id,
    isOutbound: false,
    messageType: conversation.group ? 'group' : 'message',
    status: 'RECEIVED',
    content: input.content,
    mediaUrl: input.mediaUrl,
    sendStyle: '',
    statusCallback: null,
    lineNumber: conversation.lineNumber,
    number: input.from,
    recipients: null,
    contactId: conversation.contactId,
    groupId: conversation.group?.id ?? null,
    wasDowngraded: input.service === 'SMS',
    transportHandle: input.transportHandle ?? null,
    dateSent: now,
    dateUpdated: now,
  });
  deps.store.messages.insertStatusEvent({
    id: `evt_${timeOrderedUuid()}`,
    messageHandle: message.handle,
    status: 'RECEIVED',
    errorCode: null,
    errorMessage: null,
    source: input.source,
    applied: true,
    implied: false,
    notAppliedReason: null,
    receivedAt: now,
  });
  const group = conversation.group && {
    participants: [...conversation.members, conversation.lineNumber],
    displayName: conversation.group.displayName,
  };
  const payload = JSON.stringify(toReceivePayload(message, account, group));
  for (const url of deps.store.accounts.listReceiveWebhooks(account.id)) {
    deps.store.outbox.enqueue(
      { webhookId: newWebhookId(), accountId: account.id, messageHandle: message.handle, eventType: 'message.received', url, payload },
      now,
    );
  }
  return message;
}

/** Stores one inbound message in its conversation. Call inside a transaction. */
function receiveInConversation(
  deps: ServiceDeps,
  account: AccountRow,
  input: InboundMessage,
  group: GroupRow | null,
  lineWrittenTo?: string,
): ReceiveOutcome {
  if (input.transportHandle !== undefined) {
    const known = deps.store.messages.findByAnyHandle(input.transportHandle);
    if (known) return { message: known, created: false };
  }
  const now = deps.clock.now();
  if (group) {
    const members = deps.store.groups.members(group.id);
    if (!members.includes(input.from)) {
      throw new AppError(ErrorCode.validation, `${input.from} is not a member of group ${group.id}`);
    }
    const message = insertInbound(deps, account, input, { lineNumber: group.lineNumber, contactId: null, group, members }, now);
    return { message, created: true };
  }
  const lineNumber = lineForEndUser(deps, account, input.from, lineWrittenTo, now);
  const contact = ensureContact(deps, account.id, input.from, now);
  const message = insertInbound(deps, account, input, { lineNumber, contactId: contact.id, group: null, members: [] }, now);
  deps.store.contacts.recordMessage(contact.id, now, previewOf(message.content, message.mediaUrl), false);
  return { message, created: true };
}

function committed(deps: ServiceDeps, outcome: ReceiveOutcome): ReceiveOutcome {
  if (outcome.created) {
    deps.notify.outboxWritten();
    deps.notify.accountActivity?.(outcome.message.accountId);
  }
  return outcome;
}

/**
 * An end user texts the account, one-to-one or in one of the account's groups (`groupId` is ours).
 * Used by the sandbox network and `POST /sandbox/inbound`.
 */
export function receiveInbound(deps: ServiceDeps, account: AccountRow, input: InboundMessage & { groupId?: string | undefined }): ReceiveOutcome {
  return committed(
    deps,
    deps.store.transaction(() => {
      let group: GroupRow | null = null;
      if (input.groupId !== undefined) {
        group = deps.store.groups.findById(account.id, input.groupId) ?? null;
        if (!group) throw new AppError(ErrorCode.notFound, `Group ${input.groupId} not found`);
      }
      return receiveInConversation(deps, account, input, group);
    }),
  );
}

/** An inbound message as a transport delivers it: addressed to a line, maybe in the transport's group. */
export type TransportInbound = InboundMessage & {
  /** The line the end user wrote to (the transport's number for us). */
  toNumber: string;
  /** The transport's group id, for group messages. */
  transportGroupId?: string | undefined;
  /** Every member of the transport's group, its line included. */
  participants?: string[] | undefined;
};

/**
 * The account a transport's inbound message is for: the owner of the group it names, else the
 * owner of the line it was sent to, else the account that most recently talked to the sender.
 */
function accountForInbound(deps: ServiceDeps, input: TransportInbound, knownGroup: GroupRow | undefined): AccountRow {
  const account =
    (knownGroup && deps.store.accounts.findById(knownGroup.accountId)) ||
    deps.store.accounts.findByServiceNumber(input.toNumber) ||
    deps.store.accounts.findLatestPinnedAccount(input.from);
  if (!account) throw new AppError(ErrorCode.notFound, `No account is in touch with ${input.from} or owns ${input.toNumber}`);
  return account;
}

/** Our group for a transport's group id seen for the first time: the account's group with the same people, or a new one. */
function adoptTransportGroup(
  deps: ServiceDeps,
  account: AccountRow,
  input: TransportInbound,
  transportGroupId: string,
  lineWrittenTo: string | undefined,
): GroupRow {
  const ownLines = new Set([...deps.store.accounts.listServiceNumbers(account.id), input.toNumber]);
  const people = [...new Set([...(input.participants ?? []), input.from])].filter((number) => !ownLines.has(number));
  const memberKey = memberKeyOf(people);
  const now = deps.clock.now();
  const existing = deps.store.groups.findByMemberKey(account.id, memberKey);
  if (existing) {
    deps.store.groups.setTransportGroupId(existing.id, transportGroupId);
    return { ...existing, transportGroupId };
  }
  const group: GroupRow = {
    id: randomUUID(),
    accountId: account.id,
    memberKey,
    lineNumber: lineWrittenTo ?? deps.store.accounts.findPinnedLine(account.id, input.from) ?? leastLoadedLine(deps, account),
    displayName: '',
    transportGroupId,
    createdAt: now,
    updatedAt: now,
  };
  deps.store.groups.insert(group, people);
  for (const number of people) ensureContact(deps, account.id, number, now);
  return group;
}

/** Stores an inbound message delivered by a transport, correlating its group to ours. */
export function receiveFromTransport(deps: ServiceDeps, input: TransportInbound): ReceiveOutcome {
  return committed(
    deps,
    deps.store.transaction(() => {
      const { transportGroupId } = input;
      const knownGroup = transportGroupId ? deps.store.groups.findByTransportGroupId(transportGroupId) : undefined;
      const account = accountForInbound(deps, input, knownGroup);
      // The person chose the line they wrote to: the message is stored on it, and a first contact is pinned to it.
      const lineWrittenTo = deps.store.accounts.listServiceNumbers(account.id).includes(input.toNumber) ? input.toNumber : undefined;
      const group = knownGroup ?? (transportGroupId ? adoptTransportGroup(deps, account, input, transportGroupId, lineWrittenTo) : null);
      return receiveInConversation(deps, account, input, group, lineWrittenTo);
    }),
  );
}
