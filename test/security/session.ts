/**
 * Signing in to cookie-session pages the way a person does, found from the pages themselves: the
 * page a stranger is sent to holds a form; its key and secret fields are filled and posted, and
 * the cookie it sets is the session. Nothing here names the inbox's paths or field names.
 */
import { expect } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import type { Route } from '../helpers/route-table.ts';
import { type Account, OWN_ORIGIN, send } from './calls.ts';

export type Session = { cookie: string };

function attribute(tag: string, name: string): string | undefined {
  return new RegExp(`\\b${name}="([^"]*)"`, 'i').exec(tag)?.[1];
}

/** Signs `account` in through the form on `loginPath`; the session cookie as a Cookie header value. */
export async function signIn(world: { t: Pick<TestApp, 'app'> }, loginPath: string, account: Account): Promise<Session> {
  const page = await send(world, { method: 'GET', url: loginPath, headers: [] });
  expect(page.status, page.text.slice(0, 300)).toBe(200);
  const form = /<form\b[^>]*>/i.exec(page.text)?.[0];
  expect(form, `no form on ${loginPath}`).toBeDefined();
  const fields = new URLSearchParams();
  for (const input of page.text.match(/<input\b[^>]*>/gi) ?? []) {
    const name = attribute(input, 'name');
    if (name === undefined) continue;
    if (/secret|password/i.test(name)) fields.set(name, account.secret);
    else if (/key|user|login/i.test(name)) fields.set(name, account.keyId);
    else fields.set(name, attribute(input, 'value') ?? '');
  }
  const signedIn = await send(world, {
    method: 'POST',
    url: attribute(form!, 'action') ?? loginPath,
    headers: [
      ['content-type', 'application/x-www-form-urlencoded'],
      ['origin', OWN_ORIGIN],
    ],
    body: fields.toString(),
  });
  const cookie = signedIn.headers.get('set-cookie')?.split(';')[0];
  expect(cookie, `signing in set no cookie: ${signedIn.status} ${signedIn.text.slice(0, 300)}`).toBeDefined();
  return { cookie: cookie! };
}

/** Where pages send a stranger: the Location of the first redirect one of `pages` (without parameters) answers. */
export async function loginPathOf(world: { t: Pick<TestApp, 'app'> }, pages: Route[]): Promise<string | undefined> {
  for (const route of pages.filter((each) => each.method === 'GET' && !each.path.includes(':') && !each.path.includes('*'))) {
    const answer = await send(world, { method: 'GET', url: route.path, headers: [] });
    const location = answer.headers.get('location');
    if (answer.status >= 300 && answer.status < 400 && location) return new URL(location, OWN_ORIGIN).pathname;
  }
  return undefined;
}
