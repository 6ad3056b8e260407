import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { createMiddleware } from 'hono/factory';
import type { ServiceDeps } from '../../services/deps.ts';
import { accountOfInboxSession, type OpenedSession } from '../../services/inbox-sessions.ts';
import type { AppEnv } from '../env.ts';

const COOKIE = 'textrelay_inbox';
const COOKIE_PATH = '/inbox';

/** The cookie is sent to the inbox only, never readable by scripts, never on a request from another site. */
export function setSessionCookie(c: Context, session: OpenedSession, options: { now: number; secure: boolean }): void {
  setCookie(c, COOKIE, session.token, {
    path: COOKIE_PATH,
    httpOnly: true,
    sameSite: 'Strict',
    secure: options.secure,
    maxAge: Math.floor((session.expiresAt - options.now) / 1000),
  });
}

export function clearSessionCookie(c: Context): void {
  deleteCookie(c, COOKIE, { path: COOKIE_PATH });
}

export function sessionToken(c: Context): string | undefined {
  return getCookie(c, COOKIE);
}

/**
 * Signed-in pages only. Pages send a stranger to the login form; the event stream answers 401,
 * which makes the browser's EventSource stop instead of retrying.
 */
export function requireSession(deps: ServiceDeps, stranger: 'login' | 'unauthorized') {
  return createMiddleware<AppEnv>(async (c, next) => {
    const token = sessionToken(c);
    const account = token === undefined ? undefined : await accountOfInboxSession(deps, token);
    if (!account) {
      if (token !== undefined) clearSessionCookie(c);
      return stranger === 'login' ? c.redirect('/inbox/login', 303) : c.text('Not signed in', 401);
    }
    c.set('account', account);
    await next();
  });
}

function originHost(origin: string | undefined): string | undefined {
  if (origin === undefined || !URL.canParse(origin)) return undefined;
  return new URL(origin).host;
}

/**
 * Cross-site request forgery: SameSite=Strict already keeps the cookie off other sites' requests;
 * every form POST must also come from a page of this very origin (browsers send Origin on POSTs).
 */
export const sameOriginPost = createMiddleware<AppEnv>(async (c, next) => {
  if (c.req.method === 'POST') {
    // The request URL's host is the Host header (a proxy in front must pass it on); the scheme is
    // left out, since a proxy ending TLS makes it differ.
    if (originHost(c.req.header('origin')) !== new URL(c.req.url).host) return c.text('Cross-origin form posts are refused', 403);
  }
  await next();
});
