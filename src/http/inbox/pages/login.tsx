import type { FC } from 'hono/jsx';
import { Layout } from './layout.tsx';

/** Why the last attempt was refused: wrong credentials, or too many failures (with the seconds until the next try). */
export type LoginRefusal = { kind: 'wrong' } | { kind: 'throttled'; retryAfterSeconds: number };

function refusalText(refusal: LoginRefusal): string {
  if (refusal.kind === 'wrong') return 'Those credentials do not match an account.';
  const minutes = Math.ceil(refusal.retryAfterSeconds / 60);
  return `Too many failed sign-ins. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`;
}

export const LoginPage: FC<{ refusal?: LoginRefusal | undefined; keyId: string }> = ({ refusal, keyId }) => (
  <Layout title="Log in">
    <form class="card login" method="post" action="/inbox/login">
      <h1>Log in to the inbox</h1>
      <p class="muted">
        Use an account's API key id and secret (printed by <code>textrelay accounts create</code>).
      </p>
      {refusal && (
        <p class="notice error" role="alert">
          {refusalText(refusal)}
        </p>
      )}
      <label>
        Key id
        <input name="key_id" autocomplete="username" required value={keyId} placeholder="key_…" />
      </label>
      <label>
        Secret
        <input name="secret" type="password" autocomplete="current-password" required placeholder="sk_…" />
      </label>
      <button type="submit">Log in</button>
    </form>
  </Layout>
);
