import type { FC } from 'hono/jsx';
import { Layout } from './layout.tsx';

export const LoginPage: FC<{ failed: boolean; keyId: string }> = ({ failed, keyId }) => (
  <Layout title="Log in">
    <form class="card login" method="post" action="/inbox/login">
      <h1>Log in to the inbox</h1>
      <p class="muted">Use an account's API key id and secret (printed by <code>textrelay accounts create</code>).</p>
      {failed && (
        <p class="notice error" role="alert">
          Those credentials do not match an account.
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
