import type { inboxReads } from '../../schema.ts';
import type { Db } from '../connection.ts';

export type ConversationKind = (typeof inboxReads.$inferSelect)['conversationKind'];

/** One line of the conversation list: a contact's one-to-one thread or a group. */
export type ConversationRow = {
  kind: ConversationKind;
  id: string;
  /** Contacts: the phone; groups: the member numbers, comma-joined. */
  numbers: string;
  firstName: string;
  lastName: string;
  displayName: string;
  lastAt: number;
  lastContent: string;
  lastMediaUrl: string;
  /** Inbound messages after the read marker. */
  unread: number;
};

/*
 * Inbound messages after a conversation's read marker, as a range on the conversation's date index
 * (messages_account_contact_date_idx / messages_account_group_date_idx) from the marker's time on.
 */
const unreadAfterMarker = (column: 'contact_id' | 'group_id', owner: string) => `
  (select count(*) from messages
    where messages.account_id = @accountId and messages.${column} = ${owner}.id
      and messages.date_sent >= coalesce(inbox_reads.read_through_at, 0)
      and (messages.date_sent > coalesce(inbox_reads.read_through_at, 0) or messages.id > coalesce(inbox_reads.read_through_id, 0))
      and messages.is_outbound = 0)`;

const readMarker = (kind: ConversationKind, owner: string) => `
  left join inbox_reads
    on inbox_reads.account_id = @accountId and inbox_reads.conversation_kind = '${kind}' and inbox_reads.conversation_id = ${owner}.id`;

/**
 * The web inbox's conversation list and read markers. Raw SQL: a union of contacts and groups with
 * correlated counts and a row-value comparison, which drizzle's builder cannot say.
 */
export function conversationQueries(db: Db) {
  const client = db.$client;

  /*
   * The account's most recent conversations, unread first. Contacts carry their own summary
   * (contacts_account_last_date_idx); a group's last message is the top of its date index.
   * `+@limit`: a bare bound LIMIT is re-planned on every call (see unplannedParam).
   */
  const conversations = client.prepare(`
    select * from (
      select 'contact' as kind, c.id, c.phone as numbers, c.first_name as firstName, c.last_name as lastName,
        '' as displayName, c.last_message_at as lastAt, c.preview_text as lastContent, '' as lastMediaUrl,
        ${unreadAfterMarker('contact_id', 'c')} as unread
      from (select * from contacts where account_id = @accountId and last_message_at is not null
            order by last_message_at desc, id desc limit +@limit) c
      ${readMarker('contact', 'c')}
      union all
      select 'group', grp.id, grp.member_key, '', '', grp.display_name, last.date_sent, last.content, last.media_url,
        ${unreadAfterMarker('group_id', 'grp')}
      from (select groups.*, (select id from messages where messages.account_id = @accountId and messages.group_id = groups.id
                              order by messages.date_sent desc, messages.id desc limit 1) as last_id
            from groups where groups.account_id = @accountId) grp
      join messages last on last.id = grp.last_id
      ${readMarker('group', 'grp')}
    )
    order by unread > 0 desc, lastAt desc, id
    limit +@limit`);

  // Moves the marker forward only: an older page rendered late never marks newer messages unread again.
  const markRead = client.prepare(`
    insert into inbox_reads (account_id, conversation_kind, conversation_id, read_through_at, read_through_id)
    values (@accountId, @kind, @conversationId, @at, @messageId)
    on conflict (account_id, conversation_kind, conversation_id) do update
      set read_through_at = excluded.read_through_at, read_through_id = excluded.read_through_id
      where (excluded.read_through_at, excluded.read_through_id) > (read_through_at, read_through_id)`);

  return {
    list(accountId: string, limit: number): ConversationRow[] {
      return conversations.all({ accountId, limit }) as ConversationRow[];
    },
    markRead(accountId: string, kind: ConversationKind, conversationId: string, through: { at: number; messageId: number }): void {
      markRead.run({ accountId, kind, conversationId, at: through.at, messageId: through.messageId });
    },
  };
}
