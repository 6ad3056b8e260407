import { formatterPerTimeZone } from '../../../domain/dates.ts';
import { formatDisplayPhone } from '../../../domain/phone.ts';
import type { ConversationKind } from '../../../services/inbox.ts';

const inboxFormatter = formatterPerTimeZone({
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hourCycle: 'h23',
});

/** A time as the inbox shows it, in the service's display time zone: "Nov 23, 15:04:05". */
export function formatTime(epochMs: number, timeZone: string): string {
  return inboxFormatter(timeZone).format(epochMs);
}

export const phone = formatDisplayPhone;

/** Where a conversation's page is, from its kind and id. */
export function conversationPath(kind: ConversationKind, id: string): string {
  return `/inbox/${kind === 'contact' ? 'contacts' : 'groups'}/${encodeURIComponent(id)}`;
}
