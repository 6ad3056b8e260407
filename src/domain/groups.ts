import { MAX_GROUP_MEMBERS } from './limits.ts';

/** A group is its set of end users: sorting makes the set order-insensitive and comparable. */
export function memberKeyOf(numbers: readonly string[]): string {
  return [...new Set(numbers)].sort().join(',');
}

export type GroupMembersProblem = 'too_many' | 'too_few';

/** Groups need two end users to be a group chat, and at most MAX_GROUP_MEMBERS. */
export function checkGroupSize(memberCount: number): GroupMembersProblem | null {
  if (memberCount > MAX_GROUP_MEMBERS) return 'too_many';
  if (memberCount < 2) return 'too_few';
  return null;
}
