import { createHash } from 'node:crypto';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import type { ProxySettings } from '../../src/http/forwarded.ts';
import { openRuntime } from '../../src/runtime.ts';
import { rotateSecret } from '../../src/services/accounts.ts';
import { INBOX_SESSION_MS } from '../../src/services/inbox-sessions.ts';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { inboxClient, loggedIn, ORIGIN } from './client.ts';

let t: TestApp;
afterEach(() => t.db.$client.close());

describe('inbox login', () => {
  it('opens a session with the API credentials in an HttpOnly, SameSite=Strict cookie scoped to /inbox', async () => {
    t = makeTestApp();
    const account = await t.createAccount();
    const client = inboxClient(t);
    const login = await client.logIn(account);
    expect(login.location).toBe('/inbox');
    const cookie = login.headers.get('set-cookie')!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    expect(cookie).toMatch(/Path=\/inbox(;|$)/);
    expect(cookie).toMatch(/Max-Age=43200/);

    const page = await client.get('/inbox');
    expect(page.status).toBe(200);
    expect(page.html).toContain(account.email);
  });

  it('stores only the hash of the session token', async () => {
    t = makeTestApp();
    const client = await loggedIn(t, await t.createAccount());
    const token = decodeURIComponent(client.cookie.split('=')[1]!);
    const rows = t.db.$client.prepare('select token_hash from inbox_sessions').all() as { token_hash: string }[];
    expect(rows).toEqual([{ token_hash: createHash('sha256').update(token).digest('hex') }]);
    expect(JSON.stringify(t.db.$client.prepare('select * from inbox_sessions').all())).not.toContain(token);
  });

  it('refuses a wrong secret or an unknown key id alike, with no cookie', async () => {
    t = makeTestApp();
    const account = await t.createAccount();
    const client = inboxClient(t);
    for (const form of [
      { key_id: account.api_key_id, secret: 'sk_wrong' },
      { key_id: 'key_unknown', secret: account.api_secret_key },
      { key_id: '', secret: '' },
    ]) {
      const page = await client.post('/inbox/login', form);
      expect(page.status).toBe(401);
      expect(page.headers.get('set-cookie')).toBeNull();
      expect(page.html).toContain('Those credentials do not match an account.');
    }
  });

  it('sends a visitor without a session to the login form, and the event stream answers 401', async () => {
    t = makeTestApp();
    const client = inboxClient(t);
    for (const path of ['/inbox', '/inbox/deliveries', '/inbox/contacts/anything']) {
      const page = await client.get(path);
      expect(page.status, path).toBe(303);
      expect(page.location).toBe('/inbox/login');
    }
    expect((await client.get('/inbox/events')).status).toBe(401);
    expect((await inboxClient(t, 'textrelay_inbox=forged').get('/inbox')).location).toBe('/inbox/login');
  });

  it('logs out: the cookie is cleared and the session no longer opens pages', async () => {
    t = makeTestApp();
    const client = await loggedIn(t, await t.createAccount());
    const cookie = client.cookie;
    const logout = await client.post('/inbox/logout');
    expect(logout.location).toBe('/inbox/login');
    expect(logout.headers.get('set-cookie')).toMatch(/textrelay_inbox=;.*Max-Age=0/);
    expect((await inboxClient(t, cookie).get('/inbox')).location).toBe('/inbox/login');
  });

  it('ends a session when it expires', async () => {
    t = makeTestApp();
    const client = await loggedIn(t, await t.createAccount());
    t.clock.advance(INBOX_SESSION_MS - 1);
    expect((await client.get('/inbox')).status).toBe(200);
    t.clock.advance(1);
    expect((await client.get('/inbox')).location).toBe('/inbox/login');
  });

  it('ends the sessions opened with an API secret once that secret is rotated', async () => {
    t = makeTestApp();
    const account = await t.createAccount();
    const client = await loggedIn(t, account);
    await rotateSecret(t.deps, account.email);
    expect((await client.get('/inbox')).location).toBe('/inbox/login');
  });
});

describe('the session cookie behind a TLS-ending proxy', () => {
  const secureFlag = async (proxy: Partial<ProxySettings>, headers: Record<string, string>) => {
    t = makeTestApp({ proxy });
    const account = await t.createAccount();
    const login = await inboxClient(t).post('/inbox/login', { key_id: account.api_key_id, secret: account.api_secret_key }, headers);
    expect(login.status).toBe(303);
    return /;\s*Secure(;|$)/i.test(login.headers.get('set-cookie')!);
  };

  it('is Secure when the trusted proxy says the browser came over https', async () => {
    expect(await secureFlag({ trustForwardedHeaders: true }, { 'x-forwarded-proto': 'https' })).toBe(true);
    expect(await secureFlag({ trustForwardedHeaders: true }, { 'x-forwarded-proto': 'http' })).toBe(false);
    expect(await secureFlag({ trustForwardedHeaders: true }, {})).toBe(false);
  });

  it('ignores X-Forwarded-Proto from a proxy that is not trusted', async () => {
    expect(await secureFlag({ trustForwardedHeaders: false }, { 'x-forwarded-proto': 'https' })).toBe(false);
  });

  it('is always Secure when the public URL is https', async () => {
    expect(await secureFlag({ publicUrlIsHttps: true }, {})).toBe(true);
    expect(await secureFlag({ publicUrlIsHttps: true }, { 'x-forwarded-proto': 'http' })).toBe(true);
  });

  it('takes both settings from the configuration', async () => {
    const proxyOf = async (env: Record<string, string>) => {
      const { deps, close } = await openRuntime(loadConfig({ TEXTRELAY_DB: ':memory:', ...env }), pino({ level: 'silent' }));
      await close();
      return deps.proxy;
    };
    expect(await proxyOf({})).toEqual({ trustForwardedHeaders: false, publicUrlIsHttps: false });
    expect(await proxyOf({ TEXTRELAY_TRUST_PROXY: 'true', TEXTRELAY_PUBLIC_URL: 'http://gateway.example' })).toEqual({
      trustForwardedHeaders: true,
      publicUrlIsHttps: false,
    });
    expect(await proxyOf({ TEXTRELAY_PUBLIC_URL: 'https://gateway.example' })).toEqual({
      trustForwardedHeaders: false,
      publicUrlIsHttps: true,
    });
  });
});

describe('inbox forms refuse cross-site posts', () => {
  it.each([
    ['no Origin', { origin: '' }],
    ['another site', { origin: 'https://evil.example' }],
    ['another port', { origin: 'http://localhost:8080' }],
    ['an opaque origin', { origin: 'null' }],
  ])('%s', async (_name, headers) => {
    t = makeTestApp();
    const account = await t.createAccount();
    const client = await loggedIn(t, account);
    const login = await client.post('/inbox/login', { key_id: account.api_key_id, secret: account.api_secret_key }, headers);
    expect(login.status).toBe(403);
    expect(login.headers.get('set-cookie')).toBeNull();
    expect((await client.post('/inbox/logout', {}, headers)).status).toBe(403);
    // The refused logout left the session working.
    expect((await client.get('/inbox')).status).toBe(200);
  });

  it('accepts the same origin', async () => {
    t = makeTestApp();
    const client = await loggedIn(t, await t.createAccount());
    expect((await client.post('/inbox/logout', {}, { origin: ORIGIN })).status).toBe(303);
  });
});
