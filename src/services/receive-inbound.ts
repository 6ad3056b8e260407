import { randomUUID } from 'node:crypto';
import type { AccountRow, GroupRow, MessageRow } from '../db/rows.ts';
import { ErrorCode } from '../domain/error-codes.ts';
import { memberKeyOf } from '../domain/groups.ts';
import type { OptOutIntent } from '../domain/opt-out.ts';
import { normalisePhoneSpelling, normaliseSenderHandle } from '../domain/phone.ts';
import { withStorableText } from '../domain/storable-text.ts';
import { previewOf } from '../domain/views.ts';
import { type InboundService, toReceivePayload } from '../domain/webhook-payloads.ts';
import { recordAccountEvent } from './account-events.ts';
import { AppError } from './app-error.ts';
import { groupKey, messageKey, personKey } from './batch-keys.ts';
import { ensureContact } from './contacts.ts';
import type { ServiceDeps } from './deps.ts';
import { timeOrderedUuid } from './ids.ts';
import { lineForEndUser } from './lines.ts';
import { contactOfInbound } from './opt-out.ts';
import { contactsRoomLeft } from './quotas.ts';
import { inTransaction, inWriteTransaction, type WriteOptions } from './transactions.ts';
import { reportedByItsProvider } from './upstream-credentials.ts';
import { fanOutToAccountWebhooks } from './webhook-fanout.ts';

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
  /** The transport says the message opts its sender out or back in (a carrier's keyword handling). */
  optOut?: OptOutIntent | undefined;
};

export type ReceiveOutcome = { message: MessageRow; created: boolean };

type Conversation = {
  lineNumber: string;
  contactId: string | null;
  group: GroupRow | null;
  members: string[];
  /** This very message opted its sender out (STOP). */
  optedOut?: boolean;
};

async function insertInbound(
  deps: ServiceDeps,
  account: AccountRow,
  input: InboundMessage,
  conversation: Conversation,
  now: number,
): Promise<MessageRow> {
  let message = await deps.store.messages.insert({
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
  if (conversation.optedOut) {
    await deps.store.messages.markOptedOut(message.id);
    message = { ...message, optedOut: true };
  }
  await deps.store.messages.insertStatusEvent({
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
  await fanOutToAccountWebhooks(
    deps,
    account,
    { type: 'receive', eventType: 'message.received', orderKey: message.handle, payload, line: message.lineNumber },
    now,
  );
  await recordAccountEvent(
    deps,
    account.id,
    'message.received',
    {
      message_handle: message.handle,
      number: message.number,
      to_number: message.lineNumber,
      group_id: message.groupId,
      content: message.content,
    },
    now,
  );
  return message;
}

/** Stores one inbound message in its conversation. Call inside a transaction. */
async function receiveInConversation(
  deps: ServiceDeps,
  account: AccountRow,
  input: InboundMessage,
  group: GroupRow | null,
  lineWrittenTo?: string,
): Promise<ReceiveOutcome> {
  if (input.transportHandle !== undefined) {
    const known = await deps.store.messages.findByAnyHandle(input.transportHandle);
    if (known) return { message: known, created: false };
  }
  const now = deps.clock.now();
  if (group) {
    const members = await deps.store.groups.members(group.id);
    if (!members.includes(input.from)) {
      throw new AppError(ErrorCode.validation, `${input.from} is not a member of group ${group.id}`);
    }
    const message = await insertInbound(deps, account, input, { lineNumber: group.lineNumber, contactId: null, group, members }, now);
    return { message, created: true };
  }
  const lineNumber = await lineForEndUser(deps, account, input.from, lineWrittenTo, now);
  const { contact, optedOut } = await contactOfInbound(deps, account, input.from, input.content, now, input.optOut);
  const message = await insertInbound(deps, account, input, { lineNumber, contactId: contact.id, group: null, members: [], optedOut }, now);
  await deps.store.contacts.recordMessage(contact.id, now, previewOf(message.content, message.mediaUrl), false);
  return { message, created: true };
}

function committed(deps: ServiceDeps, outcome: ReceiveOutcome): ReceiveOutcome {
  if (outcome.created) deps.notify.accountActivity?.(outcome.message.accountId);
  return outcome;
}

/**
 * An end user texts the account, one-to-one or in one of the account's groups (`groupId` is ours).
 * Used by the sandbox network and `POST /sandbox/inbound`.
 */
export async function receiveInbound(
  deps: ServiceDeps,
  account: AccountRow,
  input: InboundMessage & { groupId?: string | undefined },
): Promise<ReceiveOutcome> {
  return committed(
    deps,
    await inTransaction(deps, async (deps) => {
      let group: GroupRow | null = null;
      if (input.groupId !== undefined) {
        group = (await deps.store.groups.findById(account.id, input.groupId)) ?? null;
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
  /** The provider accounts that signed it (an ingested message): it reaches only their tenants' lines. Unset: any. */
  reportedBy?: ReadonlySet<string> | undefined;
};

/**
 * Our group for a transport's group id seen for the first time: the account's group with the same
 * people on that line, or a new one; undefined when the chat holds nobody but the account's own lines.
 */
async function adoptTransportGroup(
  deps: ServiceDeps,
  account: AccountRow,
  input: TransportInbound,
  transportGroupId: string,
  lineWrittenTo: string,
): Promise<GroupRow | undefined> {
  const ownLines = new Set([...(await deps.store.accounts.listServiceNumbers(account.id)), input.toNumber]);
  const people = [...new Set([...(input.participants ?? []), input.from])].filter((number) => !ownLines.has(number));
  if (people.length === 0) return undefined;
  const memberKey = memberKeyOf(people);
  const now = deps.clock.now();
  const existing = await deps.store.groups.findByMemberKey(account.id, memberKey, lineWrittenTo);
  if (existing) {
    await deps.store.groups.setTransportGroupId(existing.id, transportGroupId);
    return { ...existing, transportGroupId };
  }
  const group: GroupRow = {
    id: randomUUID(),
    accountId: account.id,
    memberKey,
    lineNumber: lineWrittenTo,
    displayName: '',
    transportGroupId,
    photoMediaId: null,
    createdAt: now,
    updatedAt: now,
  };
  await deps.store.groups.insert(group, people);
  // Members past the contacts quota stay members, without a contact: the message is stored all the same.
  let room = await contactsRoomLeft(deps, account.id);
  for (const number of people) {
    const known = await deps.store.contacts.findByPhone(account.id, number);
    if (known?.deletedAt === null || room <= 0) continue;
    await ensureContact(deps, account.id, number, now);
    room -= 1;
  }
  return group;
}

/** What became of a transport's inbound message: stored in its line owner's conversation, or kept as unrouted. */
export type TransportReceiveOutcome = (ReceiveOutcome & { routed: true }) | { routed: false; created: boolean };

/** Kept for the operator: no account owns the line, and guessing one would hand a person's message to a stranger. */
async function keepUnrouted(deps: ServiceDeps, input: TransportInbound, why: string): Promise<TransportReceiveOutcome> {
  const created = await deps.store.unrouted.insert({
    transportHandle: input.transportHandle ?? null,
    fromNumber: input.from,
    toNumber: input.toNumber,
    content: input.content,
    mediaUrl: input.mediaUrl,
    service: input.service,
    transportGroupId: input.transportGroupId ?? null,
    participants: input.participants ?? null,
    source: input.source,
    receivedAt: deps.clock.now(),
  });
  if (created) deps.log.warn({ to: input.toNumber, source: input.source }, why);
  return { routed: false, created };
}

/** The message with every number in E.164; undefined when one of them has no reading as a number. */
function normalisedNumbers(input: TransportInbound): TransportInbound | undefined {
  const from = normaliseSenderHandle(input.from);
  const toNumber = normalisePhoneSpelling(input.toNumber);
  const participants = input.participants?.map(normaliseSenderHandle);
  if (from === undefined || toNumber === undefined || participants?.includes(undefined)) return undefined;
  return { ...input, from, toNumber, participants: participants as string[] | undefined };
}

/** An inbound message's keys for group commit: its sender, its transport handle, its group. */
function inboundKeys(input: TransportInbound | undefined): string[] {
  if (!input) return [];
  const keys = [personKey(input.from)];
  if (input.transportHandle !== undefined) keys.push(messageKey(input.transportHandle));
  if (input.transportGroupId !== undefined) keys.push(groupKey(input.transportGroupId));
  return keys;
}

/**
 * Stores an inbound message delivered by a transport. It belongs to the account that owns the
 * line it arrived on (a line has one owner), and a group message to that account's group with the
 * transport's group id; a message to a line nobody owns (among the reporting provider account's
 * tenants, when a provider account reports it), or with a number that cannot be read, is kept as unrouted.
 * Text neither backend can store (a NUL, half a surrogate pair) is kept with U+FFFD in its place,
 * in every field: the message has already reached a phone, and refusing it would lose it.
 */
export async function receiveFromTransport(
  deps: ServiceDeps,
  asReported: TransportInbound,
  options: WriteOptions = {},
): Promise<TransportReceiveOutcome> {
  const reported = withStorableText(asReported);
  const input = normalisedNumbers(reported);
  const outcome = await inWriteTransaction(deps, options, { kind: 'inbound', keys: inboundKeys(input) }, async (deps) => {
    if (!input) return keepUnrouted(deps, reported, 'inbound message with a number that cannot be read: kept as unrouted');
    const owner = await deps.store.accounts.findByServiceNumber(input.toNumber);
    // To a provider account, another provider account's tenant's line is a line no account owns.
    const account = owner && reportedByItsProvider(deps, owner, input.reportedBy) ? owner : undefined;
    if (!account) return keepUnrouted(deps, input, 'inbound message for a line no account owns: kept as unrouted');
    const { transportGroupId } = input;
    const knownGroup = transportGroupId ? await deps.store.groups.findByTransportGroupId(account.id, transportGroupId) : undefined;
    const group =
      knownGroup ?? (transportGroupId ? await adoptTransportGroup(deps, account, input, transportGroupId, input.toNumber) : null);
    // A group with no members would break every later read of it; the message is kept for the operator instead.
    if (group === undefined)
      return keepUnrouted(deps, input, "group message whose chat holds only the account's own lines: kept as unrouted");
    return { routed: true as const, ...(await receiveInConversation(deps, account, input, group, input.toNumber)) };
  });
  if (outcome.routed) committed(deps, outcome);
  return outcome;
}
