import type { FC } from 'hono/jsx';
import type { DeliveryView } from '../../../domain/delivery-views.ts';
import { formatTime } from './format.ts';
import { Layout, type LayoutProps } from './layout.tsx';

function at(iso: string, timeZone: string) {
  return <time datetime={iso}>{formatTime(Date.parse(iso), timeZone)}</time>;
}

const Delivery: FC<{ delivery: DeliveryView; timeZone: string }> = ({ delivery, timeZone }) => (
  <li id={`delivery-${delivery.id}`} class="delivery">
    <div class="delivery-head">
      <span class={`state d-${delivery.state}`}>{delivery.state}</span>
      <span class="event">{delivery.event_type}</span>
      {typeof delivery.payload.status === 'string' && <span class={`status s-${delivery.payload.status}`}>{delivery.payload.status}</span>}
      {at(delivery.created_at, timeZone)}
      <form method="post" action={`/inbox/deliveries/${encodeURIComponent(delivery.id)}/replay`}>
        <button class="secondary" type="submit" disabled={delivery.state === 'delivering' || delivery.state === 'held'}>
          Replay
        </button>
      </form>
    </div>
    <p class="url">{delivery.url}</p>
    <p class="muted small">
      <code>{delivery.id}</code>
      <span class="handle">
        {' '}
        · message <code>{delivery.message_handle}</code>
      </span>
      {delivery.next_attempt_at && <> · next attempt {at(delivery.next_attempt_at, timeZone)}</>}
      {delivery.held_behind && (
        <>
          {' '}
          · held behind <a href={`#delivery-${delivery.held_behind}`}>{delivery.held_behind}</a> (goes once that one finishes)
        </>
      )}
    </p>
    <details id={`attempts-${delivery.id}`} class="attempts">
      <summary>
        {/* Every attempt in the log: a replay starts a fresh retry count, not a fresh log. */}
        {delivery.attempts.length} {delivery.attempts.length === 1 ? 'attempt' : 'attempts'}
        {delivery.last_status_code !== null && ` · last answer ${delivery.last_status_code}`}
        {delivery.last_error && ` · ${delivery.last_error}`}
      </summary>
      {delivery.attempts.length > 0 && (
        <table>
          <thead>
            <tr>
              <th>When</th>
              <th>Answer</th>
              <th>Time</th>
              <th>Response / error</th>
            </tr>
          </thead>
          <tbody>
            {delivery.attempts.map((attempt) => (
              <tr>
                <td>{at(attempt.attempted_at, timeZone)}</td>
                <td>{attempt.status_code ?? '—'}</td>
                <td>{attempt.duration_ms} ms</td>
                <td class="excerpt">{attempt.error ?? attempt.response_excerpt}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <pre class="payload">{JSON.stringify(delivery.payload, null, 2)}</pre>
    </details>
  </li>
);

type Props = { signedIn: NonNullable<LayoutProps['signedIn']>; deliveries: DeliveryView[]; timeZone: string; notice: string | undefined };

export const DeliveriesPage: FC<Props> = ({ signedIn, deliveries, timeZone, notice }) => (
  <Layout title="Webhook deliveries" signedIn={signedIn}>
    <h1>Webhook deliveries</h1>
    <p class="muted">Every status callback and receive webhook sent to your URLs, newest first, with each attempt.</p>
    {notice && (
      <p class="notice" role="status">
        {notice}
      </p>
    )}
    <ul id="deliveries" class="deliveries" data-live>
      {deliveries.length === 0 && (
        <li class="empty">
          No deliveries yet. Set a receive webhook (<code>POST /accounts/webhooks</code>) or a <code>status_callback</code> on a send.
        </li>
      )}
      {deliveries.map((delivery) => (
        <Delivery delivery={delivery} timeZone={timeZone} />
      ))}
    </ul>
  </Layout>
);
