import { randomUUID } from 'node:crypto';
import type { AccountRow, GroupRow } from '../db/rows.ts';
import { ErrorCode } from '../domain/error-codes.ts';
import { checkGroupSize, memberKeyOf } from '../domain/groups.ts';
import { GROUP_PLAN, MAX_GROUP_MEMBERS, planAllows } from '../domain/limits.ts';
import { AppError } from './app-error.ts';
import { ensureContact } from './contacts.ts';
import type { ServiceDeps } from './deps.ts';
import { leastLoadedLine } from './lines.ts';

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

function findGroup(deps: ServiceDeps, account: AccountRow, groupId: string): ResolvedGroup {
  const group = deps.store.groups.findById(account.id, groupId);
  if (!group) throw new AppError(ErrorCode.notFound, `Group ${groupId} not found`);
  return { group, members: deps.store.groups.members(group.id) };
}

/**
 * The group a send addresses: by group_id, or by its set of numbers (created on first use).
 * When both are given they must agree. Call inside the sending transaction.
 */
export function resolveGroupForSend(
  deps: ServiceDeps,
  account: AccountRow,
  target: { groupId?: string | undefined; numbers?: string[] | undefined },
  now: number,
): ResolvedGroup {
  const ownLines = new Set(deps.store.accounts.listServiceNumbers(account.id));
  // The account's own line is in every group already; listing it is not an error, just redundant.
  const requested = target.numbers && [...new Set(target.numbers)].filter((number) => !ownLines.has(number));
  if (requested) checkMemberCount(requested.length);

  if (target.groupId !== undefined) {
    const resolved = findGroup(deps, account, target.groupId);
    if (requested && memberKeyOf(requested) !== resolved.group.memberKey) {
      throw new AppError(ErrorCode.validation, `numbers do not match the members of group ${target.groupId}`);
    }
    return resolved;
  }
  if (!requested) throw new AppError(ErrorCode.validation, 'Either numbers or group_id is required');

  const memberKey = memberKeyOf(requested);
  const existing = deps.store.groups.findByMemberKey(account.id, memberKey);
  if (existing) return { group: existing, members: deps.store.groups.members(existing.id) };

  const group: GroupRow = {
    id: randomUUID(),
    accountId: account.id,
    memberKey,
    lineNumber: leastLoadedLine(deps, account),
    displayName: '',
    transportGroupId: null,
    photoMediaId: null,
    createdAt: now,
    updatedAt: now,
  };
  deps.store.groups.insert(group, requested);
  for (const number of requested) ensureContact(deps, account.id, number, now);
  return { group, members: requested };
}

export const MODIFY_TYPES = ['add_recipient', 'remove_recipient', 'rename', 'leave'] as const;
export type ModifyType = (typeof MODIFY_TYPES)[number];

export function modifyGroup(
  deps: ServiceDeps,
  account: AccountRow,
  input: { groupId: string; modifyType: ModifyType; number?: string | undefined },
) {
  requireGroupPlan(account);
  if (input.modifyType !== 'add_recipient') {
    throw new AppError(ErrorCode.validation, `modify_type ${input.modifyType} is not supported yet; only add_recipient is`);
  }
  const number = input.number;
  if (number === undefined) throw new AppError(ErrorCode.validation, 'number is required for add_recipient');

  return deps.store.transaction(() => {
    const now = deps.clock.now();
    const { group, members } = findGroup(deps, account, input.groupId);
    if (deps.store.accounts.listServiceNumbers(account.id).includes(number)) {
      throw new AppError(ErrorCode.validation, `${number} is this account's own number`);
    }
    // Adding someone already in the group is a no-op, so retries of the same request are safe.
    if (!members.includes(number)) {
      checkMemberCount(members.length + 1);
      const memberKey = memberKeyOf([...members, number]);
      const clash = deps.store.groups.findByMemberKey(account.id, memberKey);
      if (clash) {
        throw new AppError(ErrorCode.conflict, `Group ${clash.id} already has exactly these members`);
      }
      deps.store.groups.addMember(group.id, number, memberKey, now);
      ensureContact(deps, account.id, number, now);
    }
    return { status: 'OK' as const, group_id: group.id, modify_type: input.modifyType, number };
  });
}
