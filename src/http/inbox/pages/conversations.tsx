import type { FC } from 'hono/jsx';
import type { CarrierProblem } from '../../../services/carrier-problems.ts';
import type { ConversationSummary } from '../../../services/inbox.ts';
import { conversationPath, formatTime } from './format.ts';
import { Layout, type LayoutProps } from './layout.tsx';

/** A named contact's initials; otherwise a drawn person, or two for a group (no emoji font needed). */
const Avatar: FC<{ conversation: ConversationSummary }> = ({ conversation }) => {
  const initials = conversation.title.startsWith('+')
    ? ''
    : conversation.title
        .split(/\s+/)
        .map((word) => word.charAt(0))
        .join('')
        .slice(0, 2)
        .toUpperCase();
  if (conversation.kind === 'contact' && initials) return <>{initials}</>;
  return conversation.kind === 'group' ? (
    <svg viewBox="0 0 24 24" width="22" height="22" fill="currentColor">
      <title>Group</title>
      <circle cx="8.5" cy="8" r="3.2" />
      <circle cx="16" cy="9" r="2.7" opacity=".65" />
      <path d="M2.5 19c0-3.3 2.7-5.3 6-5.3s6 2 6 5.3z" />
      <path d="M15.5 19c0-2-.7-3.6-1.9-4.6.7-.3 1.5-.5 2.4-.5 2.8 0 5 1.7 5 5.1z" opacity=".65" />
    </svg>
  ) : (
    <svg viewBox="0 0 24 24" width="20" height="20" fill="currentColor">
      <title>Contact</title>
      <circle cx="12" cy="8" r="4" />
      <path d="M4 20.5c0-4.2 3.6-6.5 8-6.5s8 2.3 8 6.5z" />
    </svg>
  );
};

type Props = {
  signedIn: NonNullable<LayoutProps['signedIn']>;
  conversations: ConversationSummary[];
  /** Messages a carrier delivered that could not be recorded in full (an attachment it could not fetch). */
  problems?: CarrierProblem[];
  timeZone: string;
};

export const ConversationsPage: FC<Props> = ({ signedIn, conversations, problems = [], timeZone }) => (
  <Layout title="Conversations" signedIn={signedIn}>
    <h1>Conversations</h1>
    {problems.length > 0 && (
      <ul class="notice error carrier-problems" role="status">
        {problems.map((problem) => (
          <li>
            <time datetime={new Date(problem.at).toISOString()}>{formatTime(problem.at, timeZone)}</time> {problem.what}
          </li>
        ))}
      </ul>
    )}
    <ul id="conversations" class="conversations" data-live>
      {conversations.length === 0 && (
        <li class="empty">
          No conversations yet. Send a message with <code>POST /api/send-message</code> and it appears here.
        </li>
      )}
      {conversations.map((conversation) => (
        <li class={conversation.unread > 0 ? 'unread' : undefined}>
          <a href={conversationPath(conversation.kind, conversation.id)}>
            <span class="avatar" aria-hidden="true">
              <Avatar conversation={conversation} />
            </span>
            <span class="summary">
              <span class="title">{conversation.title}</span>
              <span class="preview">{conversation.preview}</span>
            </span>
            <span class="meta">
              <time datetime={new Date(conversation.lastAt).toISOString()}>{formatTime(conversation.lastAt, timeZone)}</time>
              {conversation.unread > 0 && (
                <span class="count" title={`${conversation.unread} unread`}>
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
