import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AccountRow, GroupRow } from '../db/rows.ts';
import { ErrorCode } from '../domain/error-codes.ts';
import { checkGroupSize, memberKeyOf } from '../domain/groups.ts';
import { GROUP_PLAN, MAX_GROUP_MEMBERS, planAllows } from '../domain/limits.ts';
import { storableText } from '../domain/storable-text.ts';
import { AppError } from './app-error.ts';
import type { CarrierGroupEdit } from './carrier-directory.ts';
import { ensureContact } from './contacts.ts';
import type { ServiceDeps } from './deps.ts';
import { lineActionsOf } from './line-carriers.ts';
import { leastLoadedLine, requireOwnLine } from './lines.ts';
import type { ProviderAnswer } from './provider.ts';
import { inTransaction } from './transactions.ts';

export function requireGroupPlan(account: AccountRow): void {
  if (!planAllows(account.plan, GROUP_PLAN)) {
    throw new AppError(ErrorCode.planRequired, `Group messaging requires the ${GROUP_PLAN} plan; this account is on ${account.plan}`);
  }
}

export type ResolvedGroup = { group: GroupRow; members: string[] };

function checkMemberCount(count: number): void {
  const problem = checkGroupSize(count);
  if (problem === 'too_many') throw new AppError(ErrorCode.validation, `A group holds at most ${MAX_GROUP_MEMBERS} people`);
  if (problem === 'too_few') throw new AppError(ErrorCode.validation, 'A group needs at least 2 people besides the account');
}

export async function findGroup(deps: ServiceDeps, account: AccountRow, groupId: string): Promise<ResolvedGroup> {
  // No group id holds a NUL, and PostgreSQL cannot even look one up: unknown, as on SQLite.
  if (storableText(groupId) !== groupId) throw new AppError(ErrorCode.notFound, `Group ${storableText(groupId)} not found`);
  const group = await deps.store.groups.findById(account.id, groupId);
  if (!group) throw new AppError(ErrorCode.notFound, `Group ${groupId} not found`);
  return { group, members: await deps.store.groups.members(group.id) };
}

/** Refuses a from_number other than the group's line: the line is a member of the chat, and another line is not. */
export function requireGroupLine(group: GroupRow, fromNumber: string | undefined): void {
  if (fromNumber !== undefined && fromNumber !== group.lineNumber) {
    throw new AppError(
      ErrorCode.validation,
      `from_number must be ${group.lineNumber}, the line group ${group.id} lives on (or left out); to write to these people from ${fromNumber}, send by numbers`,
    );
  }
}

/**
 * The group a send addresses: by group_id, or by its set of numbers. A set's group lives on the
 * line that created it: with `fromNumber` the set's group on that line (created there on first
 * use), without it the set's oldest group on any line (created on the least-loaded line). When
 * both group_id and numbers are given they must agree. Call inside the sending transaction, with
 * `fromNumber` already checked to be the account's.
 */
export async function resolveGroupForSend(
  deps: ServiceDeps,
  account: AccountRow,
  target: { groupId?: string | undefined; numbers?: string[] | undefined; fromNumber?: string | undefined },
  now: number,
): Promise<ResolvedGroup> {
  const ownLines = new Set(await deps.store.accounts.listServiceNumbers(account.id));
  // The account's own line is in every group already; listing it is not an error, just redundant.
  const requested = target.numbers && [...new Set(target.numbers)].filter((number) => !ownLines.has(number));
  if (requested) checkMemberCount(requested.length);

  if (target.groupId !== undefined) {
    const resolved = await findGroup(deps, account, target.groupId);
    // Compared with the members, not the stored key: a parked group's key is not its set (takeMemberKey).
    if (requested && memberKeyOf(requested) !== memberKeyOf(resolved.members)) {
      throw new AppError(ErrorCode.validation, `numbers do not match the members of group ${target.groupId}`);
    }
    requireGroupLine(resolved.group, target.fromNumber);
    return resolved;
  }
  if (!requested) throw new AppError(ErrorCode.validation, 'Either numbers or group_id is required');

  const memberKey = memberKeyOf(requested);
  const existing = await deps.store.groups.findByMemberKey(account.id, memberKey, target.fromNumber);
  if (existing) return { group: existing, members: await deps.store.groups.members(existing.id) };

  const group: GroupRow = {
    id: randomUUID(),
    accountId: account.id,
    memberKey,
    lineNumber: target.fromNumber ?? (await leastLoadedLine(deps, account)),
    displayName: '',
    transportGroupId: null,
    photoMediaId: null,
    createdAt: now,
    updatedAt: now,
  };
  await deps.store.groups.insert(group, requested);
  for (const number of requested) await ensureContact(deps, account.id, number, now);
  return { group, members: requested };
}

export const MODIFY_TYPES = ['add_recipient', 'remove_recipient', 'rename', 'leave'] as const;
export type ModifyType = (typeof MODIFY_TYPES)[number];

export type ModifyGroupInput = { groupId: string; modifyType: ModifyType; number: string; fromNumber?: string | undefined };

export type GroupModified = {
  status: 'OK';
  group_id: string;
  modify_type: ModifyType;
  number: string;
  error: null;
  error_message: null;
};

/**
 * Gives the group its new member set. Another group of the account on its line with exactly that set keeps
 * its id and members but is parked under a key no set of numbers produces: the set now addresses
 * the group just changed, and the other stays reachable by its group_id. Refusing instead would
 * make a removal impossible, and a removed person would keep receiving the group's messages.
 */
async function takeMemberKey(deps: ServiceDeps, account: AccountRow, group: GroupRow, memberKey: string): Promise<void> {
  const clash = await deps.store.groups.findByMemberKey(account.id, memberKey, group.lineNumber);
  if (clash && clash.id !== group.id) await deps.store.groups.setMemberKey(clash.id, `${memberKey}#${clash.id}`);
}

/** Checks a change against the rules; answers the members after it. */
function membersAfter(ownLines: string[], members: string[], input: ModifyGroupInput): string[] {
  const { number } = input;
  if (input.modifyType === 'add_recipient') {
    if (ownLines.includes(number)) throw new AppError(ErrorCode.validation, `number ${number} is this account's own number`);
    if (members.includes(number))
      throw new AppError(ErrorCode.validation, `number ${number} is already a member of group ${input.groupId}`);
    if (members.length + 1 > MAX_GROUP_MEMBERS) {
      throw new AppError(ErrorCode.validation, `A group holds at most ${MAX_GROUP_MEMBERS} people; group ${input.groupId} is full`);
    }
    return [...members, number];
  }
  if (!members.includes(number)) throw new AppError(ErrorCode.validation, `number ${number} is not a member of group ${input.groupId}`);
  if (members.length === 1) {
    throw new AppError(ErrorCode.validation, `number ${number} is the last person in group ${input.groupId} and cannot be removed`);
  }
  return members.filter((member) => member !== number);
}

async function modifyInTransaction(deps: ServiceDeps, account: AccountRow, input: ModifyGroupInput): Promise<GroupModified> {
  const modified = await inTransaction(deps, async (deps) => {
    const now = deps.clock.now();
    const { group, members } = await findGroup(deps, account, input.groupId);
    requireGroupLine(group, input.fromNumber);
    const after = membersAfter(await deps.store.accounts.listServiceNumbers(account.id), members, input);
    const memberKey = memberKeyOf(after);
    await takeMemberKey(deps, account, group, memberKey);
    if (input.modifyType === 'add_recipient') {
      await deps.store.groups.addMember(group.id, input.number, memberKey, now);
      await ensureContact(deps, account.id, input.number, now);
    } else {
      await deps.store.groups.removeMember(group.id, input.number, memberKey, now);
    }
    return {
      status: 'OK' as const,
      group_id: group.id,
      modify_type: input.modifyType,
      number: input.number,
      error: null,
      error_message: null,
    };
  });
  deps.notify.accountActivity?.(account.id);
  return modified;
}

/**
 * `groups.modify`: adds or removes one end user; the group keeps its group_id. rename and leave
 * are not changes of membership (`v2.groups.rename` renames; leaving is not offered).
 */
export async function modifyGroup(
  deps: ServiceDeps,
  account: AccountRow,
  input: ModifyGroupInput,
): Promise<GroupModified | ProviderAnswer> {
  requireGroupPlan(account);
  if (input.modifyType === 'rename' || input.modifyType === 'leave') {
    throw new AppError(
      ErrorCode.notImplemented,
      `modify_type ${input.modifyType} is not supported: use add_recipient or remove_recipient${input.modifyType === 'rename' ? ', and POST /api/v2/groups/{group_id}/name to rename' : ''}`,
    );
  }
  if (input.fromNumber !== undefined) await requireOwnLine(deps, account, input.fromNumber);

  // Checked before the provider or carrier changes anything, and again when recorded.
  const { group, members } = await findGroup(deps, account, input.groupId);
  requireGroupLine(group, input.fromNumber);
  membersAfter(await deps.store.accounts.listServiceNumbers(account.id), members, input);
  if (!deps.providers) {
    await editAtCarrier(deps, account, group, { kind: input.modifyType, number: input.number });
    return modifyInTransaction(deps, account, input);
  }
  const answer = await deps.providers.of(account).call({
    method: 'POST',
    path: '/api/modify-group',
    body: {
      group_id: await providerGroupIdOf(deps, account, group.id),
      modify_type: input.modifyType,
      number: input.number,
      from_number: group.lineNumber,
    },
  });
  // The provider's refusal goes back as it is; a success is answered in our own ids, like the send that made the group.
  if (!answer.ok) return answer;
  return modifyInTransaction(deps, account, input);
}

/** How long a change to a group waits for the send that creates it at the provider or carrier, and how often it looks. */
const HANDOVER_WAIT_MS = 10_000;
const HANDOVER_POLL_MS = 50;

/**
 * The id the provider or carrier knows the group by, or null when no send to it was ever handed
 * over. A group exists there only once the send that made it has been handed over, which happens
 * just after that send was answered: a change made in between waits for it rather than name a
 * group the provider has never seen.
 */
export async function handedOverGroupId(deps: ServiceDeps, account: AccountRow, groupId: string): Promise<string | null> {
  for (let waited = 0; ; waited += HANDOVER_POLL_MS) {
    const group = await deps.store.groups.findById(account.id, groupId);
    if (!group) throw new AppError(ErrorCode.notFound, `Group ${groupId} not found`);
    if (group.transportGroupId !== null) return group.transportGroupId;
    if (!(await deps.store.groups.awaitingHandover(account.id, groupId))) return null;
    if (waited >= HANDOVER_WAIT_MS) {
      throw new AppError(ErrorCode.overloaded, `Group ${groupId} is still being created by its first send; try again shortly`, {
        retryAfterSeconds: 1,
      });
    }
    await sleep(HANDOVER_POLL_MS);
  }
}

/** Relay mode: a group never handed over is known to the provider by our id, if at all. */
export async function providerGroupIdOf(deps: ServiceDeps, account: AccountRow, groupId: string): Promise<string> {
  return (await handedOverGroupId(deps, account, groupId)) ?? groupId;
}

/**
 * Carrier lines: makes a group change in the carrier's chat before textrelay records it, so a
 * refusal leaves the group as it was. Nothing to make with the sandbox, nor for members of a
 * group whose chat does not exist yet: its first send creates it with the members recorded then.
 */
export async function editAtCarrier(deps: ServiceDeps, account: AccountRow, group: GroupRow, edit: CarrierGroupEdit): Promise<void> {
  const actions = await lineActionsOf(deps, group.lineNumber);
  if (!actions) return;
  const chatId = await handedOverGroupId(deps, account, group.id);
  if (chatId === null) {
    if (edit.kind === 'add_recipient' || edit.kind === 'remove_recipient') return;
    throw new AppError(
      ErrorCode.validation,
      `Group ${group.id} has no chat at its line's carrier yet (no message to it was sent): send to the group first`,
    );
  }
  await actions.editGroup(chatId, edit);
}
