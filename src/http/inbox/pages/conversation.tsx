import type { FC } from 'hono/jsx';
import { CONTENT_LENGTH_LIMIT } from '../../../domain/limits.ts';
import type { NotAppliedReason } from '../../../domain/status.ts';
import type { Conversation, InboxMessage } from '../../../services/inbox.ts';
import { formatTime, phone } from './format.ts';
import { Layout, type LayoutProps } from './layout.tsx';

const WHY_NOT_APPLIED: Record<NotAppliedReason, string> = {
  duplicate: 'duplicate, already in this status',
  stale: 'stale, already past this status',
  final: 'after a final status',
  inbound: 'inbound messages have no delivery timeline',
  not_outbound_status: 'RECEIVED is for inbound messages only',
};

function whyNot(reason: string | null): string {
  return WHY_NOT_APPLIED[reason as NotAppliedReason] ?? reason ?? 'not applied';
}

const History: FC<{ message: InboxMessage; timeZone: string }> = ({ message, timeZone }) => (
  <details id={`history-${message.handle}`} class="history">
    <summary>
      Status history · {message.history.length} {message.history.length === 1 ? 'event' : 'events'}
    </summary>
    <ol>
      {message.history.map((event) => (
        <li class={event.applied ? 'applied' : 'ignored'}>
          <time datetime={new Date(event.receivedAt).toISOString()}>{formatTime(event.receivedAt, timeZone)}</time>
          <span class={`status s-${event.status}`}>{event.status}</span>
          <span class="source">from {event.source}</span>
          <span class="outcome">
            {event.applied
              ? event.implied
                ? 'applied (implied by a later status)'
                : 'applied'
              : `not applied: ${whyNot(event.notAppliedReason)}`}
            {event.errorCode !== null && ` · error ${event.errorCode}${event.errorMessage ? `: ${event.errorMessage}` : ''}`}
            {event.repeats > 0 && ` · reported ${event.repeats + 1} times`}
          </span>
        </li>
      ))}
    </ol>
  </details>
);

const Message: FC<{ message: InboxMessage; inGroup: boolean; timeZone: string }> = ({ message, inGroup, timeZone }) => (
  <li id={`message-${message.handle}`} class={`message ${message.isOutbound ? 'out' : 'in'}`}>
    {inGroup && !message.isOutbound && <span class="from">{phone(message.number)}</span>}
    <div class="bubble">
      {message.content}
      {message.mediaUrl && (
        <a class="media" href={message.mediaUrl} rel="noreferrer noopener" target="_blank">
          {message.mediaUrl}
        </a>
      )}
    </div>
    <div class="status-line">
      <span class={`status s-${message.status}`} data-status={message.status}>
        {message.status}
      </span>
      {message.wasDowngraded !== null && <span>{message.wasDowngraded ? 'SMS' : 'iMessage'}</span>}
      <time datetime={new Date(message.dateSent).toISOString()}>{formatTime(message.dateSent, timeZone)}</time>
    </div>
    {message.errorCode !== null && (
      <p class="error-text">
        Error {message.errorCode}: {message.errorMessage}
      </p>
    )}
    <History message={message} timeZone={timeZone} />
  </li>
);

const Composer: FC<{ conversation: Conversation; action: string }> = ({ conversation, action }) => (
  <form class="composer" method="post" action={action}>
    <div class="as">
      Reply as
      {conversation.kind === 'group' ? (
        <select name="from" aria-label="Reply as">
          {conversation.members.map((member) => (
            <option value={member}>{phone(member)}</option>
          ))}
        </select>
      ) : (
        <>
          {' '}
          <b>{phone(conversation.members[0] ?? '')}</b>
          <input type="hidden" name="from" value={conversation.members[0] ?? ''} />
        </>
      )}
      <span class="muted"> (sandbox end user)</span>
    </div>
    <div class="compose-row">
      <textarea
        name="content"
        required
        rows={2}
        maxlength={CONTENT_LENGTH_LIMIT - 1}
        placeholder="Write as the end user…"
        aria-label="Message"
      ></textarea>
      <button type="submit">Send</button>
    </div>
  </form>
);

type Props = {
  signedIn: NonNullable<LayoutProps['signedIn']>;
  conversation: Conversation;
  path: string;
  timeZone: string;
  error: string | undefined;
};

export const ConversationPage: FC<Props> = ({ signedIn, conversation, path, timeZone, error }) => (
  <Layout title={conversation.title} signedIn={signedIn}>
    <div class="thread-head">
      <a class="back" href="/inbox" aria-label="All conversations">
        ←
      </a>
      <div>
        <h1>{conversation.title}</h1>
        <p class="muted">
          {[
            conversation.kind === 'group' ? `Group of ${conversation.members.map(phone).join(', ')}` : undefined,
            // A contact without a name is titled by the number already.
            conversation.kind === 'contact' && conversation.title !== phone(conversation.members[0] ?? '')
              ? phone(conversation.members[0] ?? '')
              : undefined,
            conversation.lineNumber ? `on your line ${phone(conversation.lineNumber)}` : undefined,
          ]
            .filter(Boolean)
            .join(' · ')}
        </p>
      </div>
    </div>
    <ol id="messages" class="messages" data-live>
      {conversation.messages.map((message) => (
        <Message message={message} inGroup={conversation.kind === 'group'} timeZone={timeZone} />
      ))}
    </ol>
    {error && (
      <p class="notice error" role="alert">
        {error}
      </p>
    )}
    {signedIn.sandbox && <Composer conversation={conversation} action={`${path}/reply`} />}
  </Layout>
);
