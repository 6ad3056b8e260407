import { expect } from 'vitest';
import type { TestAccount, TestApp } from '../helpers/app.ts';

/** The origin the in-process requests claim; form posts carry it as a browser would. */
export const ORIGIN = 'http://localhost';

export type Page = { status: number; headers: Headers; html: string; location: string | null };

async function toPage(response: Response): Promise<Page> {
  return { status: response.status, headers: response.headers, html: await response.text(), location: response.headers.get('location') };
}

/** A browser's view of the inbox: its cookie, GETs and same-origin form posts. */
export function inboxClient(t: TestApp, cookie = '') {
  const client = {
    cookie,
    async get(path: string, headers: Record<string, string> = {}): Promise<Page> {
      return toPage(await t.app.request(`${ORIGIN}${path}`, { headers: { cookie: client.cookie, ...headers } }));
    },
    async post(path: string, form: Record<string, string> = {}, headers: Record<string, string> = {}): Promise<Page> {
      return toPage(
        await t.app.request(`${ORIGIN}${path}`, {
          method: 'POST',
          headers: { cookie: client.cookie, origin: ORIGIN, 'content-type': 'application/x-www-form-urlencoded', ...headers },
          body: new URLSearchParams(form),
        }),
      );
    },
    /** Logs in with the account's API credentials and keeps the session cookie. */
    async logIn(account: Pick<TestAccount, 'api_key_id' | 'api_secret_key'>): Promise<Page> {
      const page = await client.post('/inbox/login', { key_id: account.api_key_id, secret: account.api_secret_key });
      expect(page.status, page.html).toBe(303);
      const setCookie = page.headers.get('set-cookie') ?? '';
      client.cookie = setCookie.split(';')[0]!;
      return page;
    },
  };
  return client;
}

export async function loggedIn(t: TestApp, account: TestAccount) {
  const client = inboxClient(t);
  await client.logIn(account);
  return client;
}

/** The visible text of an HTML fragment, whitespace collapsed, for assertions on what a reader sees. */
export function textOf(html: string): string {
  return html
    .replace(/<(script|style)[^>]*>[\s\S]*?<\/\1>/g, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/\s+/g, ' ')
    .trim();
}
