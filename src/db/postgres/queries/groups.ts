import { and, asc, eq, isNull, sql } from 'drizzle-orm';
import type { GroupRow } from '../../rows.ts';
import type { PgDb } from '../db.ts';
import { groupMembers, groups, messages } from '../schema.ts';

export function groupQueries(db: PgDb) {
  async function first<T>(rows: Promise<T[]>): Promise<T | undefined> {
    return (await rows)[0];
  }

  return {
    /** The account's group of this set of people on `lineNumber`; without a line, the oldest on any. */
    async findByMemberKey(accountId: string, memberKey: string, lineNumber?: string): Promise<GroupRow | undefined> {
      const onLine = lineNumber === undefined ? undefined : eq(groups.lineNumber, lineNumber);
      return first(
        db
          .select()
          .from(groups)
          // The set's unique index holds md5(member_key): comparing the hash too lets the lookup use it.
          .where(
            and(
              eq(groups.accountId, accountId),
              sql`md5(${groups.memberKey}) = md5(${memberKey})`,
              eq(groups.memberKey, memberKey),
              onLine,
            ),
          )
          .orderBy(asc(groups.createdAt), asc(groups.id))
          .limit(1),
      );
    },
    /** Whether a message to the group is still waiting for its hand-over to the transport. */
    async awaitingHandover(accountId: string, groupId: string): Promise<boolean> {
      const waiting = await first(
        db
          .select({ id: messages.id })
          .from(messages)
          .where(
            and(
              eq(messages.accountId, accountId),
              eq(messages.groupId, groupId),
              eq(messages.isOutbound, true),
              isNull(messages.handedOverAt),
              sql`${messages.status} = 'QUEUED'`,
            ),
          )
          .limit(1),
      );
      return waiting !== undefined;
    },
    async findById(accountId: string, id: string): Promise<GroupRow | undefined> {
      return first(
        db
          .select()
          .from(groups)
          .where(and(eq(groups.accountId, accountId), eq(groups.id, id))),
      );
    },
    /** The account's group the transport knows by this id. */
    async findByTransportGroupId(accountId: string, transportGroupId: string): Promise<GroupRow | undefined> {
      return first(
        db
          .select()
          .from(groups)
          .where(and(eq(groups.accountId, accountId), eq(groups.transportGroupId, transportGroupId))),
      );
    },
    async setTransportGroupId(groupId: string, transportGroupId: string): Promise<void> {
      await db.update(groups).set({ transportGroupId }).where(eq(groups.id, groupId));
    },
    async members(groupId: string): Promise<string[]> {
      const rows = await db
        .select({ number: groupMembers.number })
        .from(groupMembers)
        .where(eq(groupMembers.groupId, groupId))
        // Ties by number in byte order, as SQLite compares text.
        .orderBy(asc(groupMembers.addedAt), sql`${groupMembers.number} collate "C"`);
      return rows.map((row) => row.number);
    },
    async insert(group: GroupRow, memberNumbers: readonly string[]): Promise<void> {
      await db.insert(groups).values(group);
      await db.insert(groupMembers).values(memberNumbers.map((number) => ({ groupId: group.id, number, addedAt: group.createdAt })));
    },
    async addMember(groupId: string, number: string, memberKey: string, at: number): Promise<void> {
      await db.insert(groupMembers).values({ groupId, number, addedAt: at });
      await db.update(groups).set({ memberKey, updatedAt: at }).where(eq(groups.id, groupId));
    },
    async removeMember(groupId: string, number: string, memberKey: string, at: number): Promise<void> {
      await db.delete(groupMembers).where(and(eq(groupMembers.groupId, groupId), eq(groupMembers.number, number)));
      await db.update(groups).set({ memberKey, updatedAt: at }).where(eq(groups.id, groupId));
    },
    /** Gives the group a key no set of numbers produces: it stays reachable by id only. */
    async setMemberKey(groupId: string, memberKey: string): Promise<void> {
      await db.update(groups).set({ memberKey }).where(eq(groups.id, groupId));
    },
    async rename(groupId: string, displayName: string, at: number): Promise<void> {
      await db.update(groups).set({ displayName, updatedAt: at }).where(eq(groups.id, groupId));
    },
    async setPhoto(groupId: string, photoMediaId: string | null, at: number): Promise<void> {
      await db.update(groups).set({ photoMediaId, updatedAt: at }).where(eq(groups.id, groupId));
    },
  };
}
