import { and, asc, eq, sql } from 'drizzle-orm';
import type { GroupRow } from '../../rows.ts';
import { groupMembers, groups, messages } from '../../schema.ts';
import type { Db } from '../connection.ts';

export function groupQueries(db: Db) {
  const ofMembers = and(eq(groups.accountId, sql.placeholder('accountId')), eq(groups.memberKey, sql.placeholder('memberKey')));
  const byMembersOnLine = db
    .select()
    .from(groups)
    .where(and(ofMembers, eq(groups.lineNumber, sql.placeholder('lineNumber'))))
    .prepare();
  const oldestByMembers = db.select().from(groups).where(ofMembers).orderBy(asc(groups.createdAt), asc(groups.id)).prepare();
  const byId = db
    .select()
    .from(groups)
    .where(and(eq(groups.accountId, sql.placeholder('accountId')), eq(groups.id, sql.placeholder('id'))))
    .prepare();
  const members = db
    .select({ number: groupMembers.number })
    .from(groupMembers)
    .where(eq(groupMembers.groupId, sql.placeholder('groupId')))
    .orderBy(asc(groupMembers.addedAt), asc(groupMembers.number))
    .prepare();

  return {
    /** The account's group of this set of people on `lineNumber`; without a line, the oldest on any. */
    findByMemberKey(accountId: string, memberKey: string, lineNumber?: string): GroupRow | undefined {
      return lineNumber === undefined
        ? oldestByMembers.get({ accountId, memberKey })
        : byMembersOnLine.get({ accountId, memberKey, lineNumber });
    },
    /** Whether a message to the group is still waiting for its hand-over to the transport. */
    awaitingHandover(accountId: string, groupId: string): boolean {
      return (
        db
          .select({ id: messages.id })
          .from(messages)
          .where(
            and(
              eq(messages.accountId, accountId),
              eq(messages.groupId, groupId),
              eq(messages.isOutbound, true),
              sql`${messages.handedOverAt} is null`,
              eq(messages.status, 'QUEUED'),
            ),
          )
          .limit(1)
          .get() !== undefined
      );
    },
    findById(accountId: string, id: string): GroupRow | undefined {
      return byId.get({ accountId, id });
    },
    /** The account's group the transport knows by this id. */
    findByTransportGroupId(accountId: string, transportGroupId: string): GroupRow | undefined {
      return db
        .select()
        .from(groups)
        .where(and(eq(groups.accountId, accountId), eq(groups.transportGroupId, transportGroupId)))
        .get();
    },
    setTransportGroupId(groupId: string, transportGroupId: string): void {
      db.update(groups).set({ transportGroupId }).where(eq(groups.id, groupId)).run();
    },
    members(groupId: string): string[] {
      return members.all({ groupId }).map((row) => row.number);
    },
    insert(group: GroupRow, memberNumbers: readonly string[]): void {
      db.insert(groups).values(group).run();
      db.insert(groupMembers)
        .values(memberNumbers.map((number) => ({ groupId: group.id, number, addedAt: group.createdAt })))
        .run();
    },
    addMember(groupId: string, number: string, memberKey: string, at: number): void {
      db.insert(groupMembers).values({ groupId, number, addedAt: at }).run();
      db.update(groups).set({ memberKey, updatedAt: at }).where(eq(groups.id, groupId)).run();
    },
    removeMember(groupId: string, number: string, memberKey: string, at: number): void {
      db.delete(groupMembers)
        .where(and(eq(groupMembers.groupId, groupId), eq(groupMembers.number, number)))
        .run();
      db.update(groups).set({ memberKey, updatedAt: at }).where(eq(groups.id, groupId)).run();
    },
    /** Gives the group a key no set of numbers produces: it stays reachable by id only. */
    setMemberKey(groupId: string, memberKey: string): void {
      db.update(groups).set({ memberKey }).where(eq(groups.id, groupId)).run();
    },
    rename(groupId: string, displayName: string, at: number): void {
      db.update(groups).set({ displayName, updatedAt: at }).where(eq(groups.id, groupId)).run();
    },
    setPhoto(groupId: string, photoMediaId: string | null, at: number): void {
      db.update(groups).set({ photoMediaId, updatedAt: at }).where(eq(groups.id, groupId)).run();
    },
  };
}
