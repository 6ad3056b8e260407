import type { AccountRow, MessageRow } from '../db/rows.ts';
import type { MessageV2Filter, MessageV2Order } from '../db/store.ts';
import { ErrorCode } from '../domain/error-codes.ts';
import { workerIdOf } from '../domain/line-state.ts';
import { messageRowJson } from '../domain/message-row-view.ts';
import { MESSAGE_STATUSES, type MessageStatus } from '../domain/status.ts';
import { AppError } from './app-error.ts';
import type { ServiceDeps } from './deps.ts';
import { participantsOf } from './messages.ts';

/** messages.list's query, as the API names it (dates already epoch milliseconds). */
export type MessageV2Query = {
  number?: string | undefined;
  from_number?: string | undefined;
  to_number?: string | undefined;
  sendblue_number?: string | undefined;
  worker_id?: string | undefined;
  group_id?: string | undefined;
  is_outbound?: boolean | undefined;
  message_type?: 'message' | 'group' | undefined;
  service?: 'iMessage' | 'SMS' | 'RCS' | undefined;
  status?: string | undefined;
  account_email?: string | undefined;
  created_at_gte?: number | undefined;
  created_at_lte?: number | undefined;
  sent_at_gte?: number | undefined;
  sent_at_lte?: number | undefined;
  updated_at_gte?: number | undefined;
  updated_at_lte?: number | undefined;
  order: MessageV2Order;
  limit: number;
  offset: number;
};

/** A query no message can match (another account's email, a status textrelay never produces...). */
const NOTHING = null;

/** Adds `key = value` to the filter; NOTHING when the filter already asks for another value. */
function narrow<K extends keyof MessageV2Filter>(
  filter: MessageV2Filter | null,
  key: K,
  value: MessageV2Filter[K],
): MessageV2Filter | null {
  if (filter === NOTHING || value === undefined) return filter;
  if (filter[key] !== undefined && filter[key] !== value) return NOTHING;
  return { ...filter, [key]: value };
}

function latest(...times: (number | undefined)[]): number | undefined {
  const given = times.filter((time) => time !== undefined);
  return given.length === 0 ? undefined : Math.max(...given);
}

function earliest(...times: (number | undefined)[]): number | undefined {
  const given = times.filter((time) => time !== undefined);
  return given.length === 0 ? undefined : Math.min(...given);
}

/**
 * The API's filters in database terms. from_number and to_number name the account's line on one
 * side and the end user on the other, so they become a direction plus a line or number.
 */
async function toFilter(deps: ServiceDeps, account: AccountRow, query: MessageV2Query): Promise<MessageV2Filter | null> {
  if (query.account_email !== undefined && query.account_email !== account.email) return NOTHING;
  if (query.service === 'RCS') return NOTHING;
  if (query.status !== undefined && !MESSAGE_STATUSES.includes(query.status as MessageStatus)) return NOTHING;
  // Only the filters that name a line or a worker need the account's lines.
  const namesLine = query.worker_id !== undefined || query.from_number !== undefined || query.to_number !== undefined;
  const lines = namesLine ? await deps.store.accounts.listServiceNumbers(account.id) : [];
  let filter: MessageV2Filter | null = {
    status: query.status as MessageStatus | undefined,
    groupId: query.group_id,
    isOutbound: query.is_outbound,
    messageType: query.message_type,
    downgraded: query.service === undefined ? undefined : query.service === 'SMS',
    sentFrom: latest(query.created_at_gte, query.sent_at_gte),
    sentTo: earliest(query.created_at_lte, query.sent_at_lte),
    updatedFrom: query.updated_at_gte,
    updatedTo: query.updated_at_lte,
  };
  filter = narrow(filter, 'number', query.number);
  filter = narrow(filter, 'lineNumber', query.sendblue_number);
  if (query.worker_id !== undefined) {
    const line = lines.find((number) => workerIdOf(number) === query.worker_id);
    filter = line === undefined ? NOTHING : narrow(filter, 'lineNumber', line);
  }
  for (const [side, value] of [
    ['from', query.from_number],
    ['to', query.to_number],
  ] as const) {
    if (value === undefined) continue;
    const isLine = lines.includes(value);
    // A message from a line is outbound; one to a line is inbound.
    filter = narrow(filter, 'isOutbound', isLine === (side === 'from'));
    filter = narrow(filter, isLine ? 'lineNumber' : 'number', value);
  }
  return filter;
}

async function rowOf(deps: ServiceDeps, account: AccountRow, message: MessageRow, groupDisplayName: string | null) {
  return messageRowJson(message, account, { groupDisplayName, participants: await participantsOf(deps, message) });
}

/** messages.list: a page of the account's messages and how many match in all, as JSON text. */
export async function listMessagesV2(deps: ServiceDeps, account: AccountRow, query: MessageV2Query) {
  const filter = await toFilter(deps, account, query);
  const rows =
    filter === NOTHING ? [] : await deps.store.messagesV2.listJson(account.id, filter, query.order, query.limit, query.offset, account);
  // A short page that is not past the end says the total itself: only a full page needs counting.
  const pageSaysTotal = rows.length < query.limit && (rows.length > 0 || query.offset === 0);
  const total =
    filter === NOTHING
      ? 0
      : pageSaysTotal
        ? query.offset + rows.length
        : await deps.store.messagesV2.total(account.id, filter, deps.clock.now());
  const pagination = { total, limit: query.limit, offset: query.offset, hasMore: query.offset + rows.length < total };
  return `{"status":"OK","data":[${rows.join(',')}],"pagination":${JSON.stringify(pagination)}}`;
}

/** messages.retrieve: one of the account's messages by its handle, as JSON text. */
export async function retrieveMessageV2(deps: ServiceDeps, account: AccountRow, handle: string) {
  const message = await deps.store.messages.findByHandle(account.id, handle);
  if (!message) throw new AppError(ErrorCode.notFound, `No message with handle ${handle}`);
  const group = message.groupId === null ? undefined : await deps.store.groups.findById(account.id, message.groupId);
  return `{"status":"OK","data":${await rowOf(deps, account, message, group === undefined ? null : group.displayName)}}`;
}
