import type { Context } from 'hono';
import { z } from 'zod';
import type { Metrics } from '../../metrics/metrics.ts';
import type { ServiceDeps } from '../../services/deps.ts';
import { openInboxSession } from '../../services/inbox-sessions.ts';
import type { SignInThrottle } from '../../services/sign-in-throttle.ts';
import type { AppEnv } from '../env.ts';
import { clientAddress, type ProxySettings, reachedOverHttps } from '../forwarded.ts';
import { LoginPage } from './pages/login.tsx';
import { setSessionCookie } from './session.ts';

export type SignInDeps = ServiceDeps & { signInThrottle: SignInThrottle; proxy: ProxySettings; metrics: Pick<Metrics, 'inboxSignIn'> };

const LoginForm = z.object({ key_id: z.string().trim().min(1).max(200), secret: z.string().trim().min(1).max(500) });

/**
 * `POST /inbox/login`. While a key id or a client address is locked out, every attempt is refused
 * with 429 before the credentials are looked at, the right ones too: answering those would tell a
 * guesser when it had found the secret.
 */
export function signIn(deps: SignInDeps) {
  return async (c: Context<AppEnv>) => {
    const form = LoginForm.safeParse(await c.req.parseBody());
    const keyId = form.data?.key_id ?? '';
    const address = clientAddress(c, deps.proxy);

    const lockedForMs = await deps.signInThrottle.lockedForMs(keyId, address);
    if (lockedForMs > 0) {
      deps.metrics.inboxSignIn('throttled');
      const retryAfterSeconds = Math.ceil(lockedForMs / 1000);
      c.header('Retry-After', String(retryAfterSeconds));
      return c.html(<LoginPage refusal={{ kind: 'throttled', retryAfterSeconds }} keyId={keyId} />, 429);
    }

    const session = form.success ? await openInboxSession(deps, keyId, form.data.secret) : undefined;
    if (!session) {
      deps.metrics.inboxSignIn('wrong_credentials');
      const lockedBy = await deps.signInThrottle.failed(keyId, address);
      if (lockedBy.length > 0) {
        const retryAfterSeconds = Math.ceil((await deps.signInThrottle.lockedForMs(keyId, address)) / 1000);
        deps.log.warn({ keyId, clientAddress: address, lockedBy, retryAfterSeconds }, 'inbox sign-in locked out after repeated failures');
      }
      return c.html(<LoginPage refusal={{ kind: 'wrong' }} keyId={keyId} />, 401);
    }

    await deps.signInThrottle.succeeded(keyId);
    deps.metrics.inboxSignIn('signed_in');
    setSessionCookie(c, session, { now: deps.clock.now(), secure: reachedOverHttps(c, deps.proxy) });
    return c.redirect('/inbox', 303);
  };
}
