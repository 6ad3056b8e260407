import type { AccountRow, MessageRow, StatusEventRow } from '../db/rows.ts';
import type { ConversationKind } from '../db/store.ts';
import { ErrorCode } from '../domain/error-codes.ts';
import { formatDisplayPhone } from '../domain/phone.ts';
import { previewOf } from '../domain/views.ts';
import { AppError } from './app-error.ts';
import type { ServiceDeps } from './deps.ts';
import { receiveSandboxInbound, type SandboxInboundInput } from './sandbox.ts';

/** The inbox lists this many conversations (the most recent) and shows this many messages of one. */
export const INBOX_CONVERSATIONS = 100;
export const INBOX_MESSAGES = 100;

export type { ConversationKind };

export type ConversationSummary = {
  kind: ConversationKind;
  id: string;
  title: string;
  lastAt: number;
  preview: string;
  unread: number;
};

export type InboxMessage = MessageRow & { history: StatusEventRow[] };

export type Conversation = {
  kind: ConversationKind;
  id: string;
  title: string;
  /** The end users: the contact's number, or the group's members. */
  members: string[];
  lineNumber: string;
  /** Oldest first, the newest INBOX_MESSAGES. */
  messages: InboxMessage[];
};

function titleOf(names: { firstName: string; lastName: string; displayName: string }, numbers: readonly string[]): string {
  const name = names.displayName || `${names.firstName} ${names.lastName}`.trim();
  return name || numbers.map(formatDisplayPhone).join(', ');
}

/** The account's recent conversations, one-to-one and groups, unread ones first, then the most recent. */
export async function listConversations(deps: ServiceDeps, account: AccountRow): Promise<ConversationSummary[]> {
  return (await deps.store.conversations.list(account.id, INBOX_CONVERSATIONS)).map((row) => ({
    kind: row.kind,
    id: row.id,
    title: titleOf(row, row.numbers.split(',')),
    lastAt: row.lastAt,
    preview: row.kind === 'contact' ? row.lastContent : previewOf(row.lastContent, row.lastMediaUrl),
    unread: row.unread,
  }));
}

async function withHistories(deps: ServiceDeps, rows: MessageRow[]): Promise<InboxMessage[]> {
  const histories = new Map<string, StatusEventRow[]>();
  for (const event of await deps.store.inbox.histories(rows.map((row) => row.handle))) {
    histories.set(event.messageHandle, [...(histories.get(event.messageHandle) ?? []), event]);
  }
  return rows.map((row) => ({ ...row, history: histories.get(row.handle) ?? [] }));
}

async function findConversation(deps: ServiceDeps, account: AccountRow, kind: ConversationKind, id: string) {
  if (kind === 'contact') {
    const contact = await deps.store.contacts.findById(account.id, id);
    if (!contact) throw new AppError(ErrorCode.notFound, 'No such conversation');
    const members = [contact.phone];
    const lineNumber = (await deps.store.accounts.findPinnedLine(account.id, contact.phone)) ?? '';
    return { title: titleOf({ ...contact, displayName: '' }, members), members, lineNumber, filter: { contactId: id } };
  }
  const group = await deps.store.groups.findById(account.id, id);
  if (!group) throw new AppError(ErrorCode.notFound, 'No such conversation');
  const members = await deps.store.groups.members(group.id);
  const title = titleOf({ firstName: '', lastName: '', displayName: group.displayName }, members);
  return { title, members, lineNumber: group.lineNumber, filter: { groupId: id } };
}

/**
 * A conversation of the account with every message's status history; reading it marks it read
 * through its newest message, as opening a thread does in any inbox.
 */
export async function readConversation(deps: ServiceDeps, account: AccountRow, kind: ConversationKind, id: string): Promise<Conversation> {
  const { title, members, lineNumber, filter } = await findConversation(deps, account, kind, id);
  const newestFirst = await deps.store.messages.list(account.id, filter, INBOX_MESSAGES, 0);
  const newest = newestFirst[0];
  if (newest) await deps.store.conversations.markRead(account.id, kind, id, { at: newest.dateSent, messageId: newest.id });
  const messages = await withHistories(deps, newestFirst.reverse());
  return { kind, id, title, members, lineNumber, messages };
}

/**
 * Sandbox: a person of the conversation writes to the account, as `POST /sandbox/inbound` would
 * have it (same service), limited to the people of this conversation.
 */
export async function replyAsEndUser(
  deps: ServiceDeps,
  account: AccountRow,
  kind: ConversationKind,
  id: string,
  reply: Omit<SandboxInboundInput, 'groupId'>,
) {
  const { members } = await findConversation(deps, account, kind, id);
  if (!members.includes(reply.number)) throw new AppError(ErrorCode.validation, `${reply.number} is not in this conversation`);
  return receiveSandboxInbound(deps, account, { ...reply, groupId: kind === 'group' ? id : undefined });
}
