import { sql } from 'drizzle-orm';
import type { ConversationKind, ConversationRow } from '../../sqlite/queries/conversations.ts';
import type { PgDb } from '../db.ts';
import { inboxReads } from '../schema.ts';
import { rawRows } from './raw-rows.ts';

/*
 * Inbound messages after a conversation's read marker, as a range on the conversation's date index
 * (messages_account_contact_date_idx / messages_account_group_date_idx) from the marker's time on.
 */
const unreadAfterMarker = (accountId: string, column: 'contact_id' | 'group_id', owner: 'c' | 'grp') => sql`
  (select count(*) from messages
    where messages.account_id = ${accountId} and messages.${sql.raw(column)} = ${sql.raw(owner)}.id
      and messages.date_sent >= coalesce(inbox_reads.read_through_at, 0)
      and (messages.date_sent > coalesce(inbox_reads.read_through_at, 0) or messages.id > coalesce(inbox_reads.read_through_id, 0))
      and not messages.is_outbound)::float8`;

const readMarker = (accountId: string, kind: ConversationKind, owner: 'c' | 'grp') => sql`
  left join inbox_reads
    on inbox_reads.account_id = ${accountId} and inbox_reads.conversation_kind = ${sql.raw(`'${kind}'`)}
      and inbox_reads.conversation_id = ${sql.raw(owner)}.id`;

/**
 * The web inbox's conversation list and read markers. Raw SQL: a union of contacts and groups with
 * correlated counts, which drizzle's builder cannot say.
 */
export function conversationQueries(db: PgDb) {
  return {
    /*
     * The account's most recent conversations, unread first. Contacts carry their own summary
     * (contacts_account_last_date_idx, read backwards: NULLs, none here, last); a group's last
     * message is the top of its date index.
     * The final ties go by id in byte order ("C"), as SQLite compares text.
     */
    async list(accountId: string, limit: number): Promise<ConversationRow[]> {
      return rawRows<ConversationRow>(
        db,
        sql`
        select * from (
          select 'contact' as kind, c.id, c.phone as numbers, c.first_name as "firstName", c.last_name as "lastName",
            '' as "displayName", c.last_message_at::float8 as "lastAt", c.preview_text as "lastContent", '' as "lastMediaUrl",
            ${unreadAfterMarker(accountId, 'contact_id', 'c')} as unread
          from (select * from contacts where account_id = ${accountId} and last_message_at is not null
                order by last_message_at desc nulls last, id desc limit ${limit}) c
          ${readMarker(accountId, 'contact', 'c')}
          union all
          select 'group', grp.id, grp.member_key, '', '', grp.display_name, last.date_sent::float8, last.content, last.media_url,
            ${unreadAfterMarker(accountId, 'group_id', 'grp')}
          from (select groups.*, (select id from messages where messages.account_id = ${accountId} and messages.group_id = groups.id
                                  order by messages.date_sent desc, messages.id desc limit 1) as last_id
                from groups where groups.account_id = ${accountId}) grp
          join messages last on last.id = grp.last_id
          ${readMarker(accountId, 'group', 'grp')}
        ) conversations
        order by unread > 0 desc, "lastAt" desc, id collate "C"
        limit ${limit}`,
      );
    },
    /** Moves the marker forward only: an older page rendered late never marks newer messages unread again. */
    async markRead(
      accountId: string,
      kind: ConversationKind,
      conversationId: string,
      through: { at: number; messageId: number },
    ): Promise<void> {
      await db
        .insert(inboxReads)
        .values({ accountId, conversationKind: kind, conversationId, readThroughAt: through.at, readThroughId: through.messageId })
        .onConflictDoUpdate({
          target: [inboxReads.accountId, inboxReads.conversationKind, inboxReads.conversationId],
          set: { readThroughAt: sql`excluded.read_through_at`, readThroughId: sql`excluded.read_through_id` },
          setWhere: sql`(excluded.read_through_at, excluded.read_through_id) > (${inboxReads.readThroughAt}, ${inboxReads.readThroughId})`,
        });
    },
  };
}
