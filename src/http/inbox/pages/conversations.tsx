import type { FC } from 'hono/jsx';
import type { ConversationSummary } from '../../../services/inbox.ts';
import { formatTime } from './format.ts';
import { Layout, type LayoutProps } from './layout.tsx';

type Props = { signedIn: NonNullable<LayoutProps['signedIn']>; conversations: ConversationSummary[]; timeZone: string };

export const ConversationsPage: FC<Props> = ({ signedIn, conversations, timeZone }) => (
  <Layout title="Conversations" signedIn={signedIn}>
    <h1>Conversations</h1>
    <ul id="conversations" class="conversations" data-live>
      {conversations.length === 0 && (
        <li class="empty">
          No conversations yet. Send a message with <code>POST /api/send-message</code> and it appears here.
        </li>
      )}
      {conversations.map((conversation) => (
        <li class={conversation.unread > 0 ? 'unread' : undefined}>
          <a href={`/inbox/${conversation.kind === 'contact' ? 'contacts' : 'groups'}/${encodeURIComponent(conversation.id)}`}>
            <span class="avatar" aria-hidden="true">
              {conversation.kind === 'group' ? '👥' : conversation.title.replace(/^\+/, '').charAt(0).toUpperCase()}
            </span>
            <span class="summary">
              <span class="title">{conversation.title}</span>
              <span class="preview">{conversation.preview}</span>
            </span>
            <span class="meta">
              <time datetime={new Date(conversation.lastAt).toISOString()}>{formatTime(conversation.lastAt, timeZone)}</time>
              {conversation.unread > 0 && (
                <span class="count" aria-label={`${conversation.unread} unread`}>
                  {conversation.unread}
                </span>
              )}
            </span>
          </a>
        </li>
      ))}
    </ul>
  </Layout>
);
