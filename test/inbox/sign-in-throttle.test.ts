import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { type Listening, serveOnLoopback } from '../helpers/listen.ts';

type Line = Record<string, unknown> & { level: number; msg: string };

const WINDOW_MS = 15 * 60 * 1000;
const WRONG_SECRET = 'sk_not-the-secret-of-anyone-at-all';

let t: TestApp;
let server: Listening;
let rawLog: string[];
let lines: Line[];
const running: (() => Promise<void>)[] = [];

async function stopAll() {
  for (const stop of running.splice(0)) await stop();
}
afterEach(stopAll);

/** The app on a real socket at 127.0.0.1, as `serve` runs it, with its log lines kept in memory. */
async function serveApp(overrides: Parameters<typeof makeTestApp>[0] = {}) {
  rawLog = [];
  lines = [];
  const log = createLogger('info', {
    write(line: string) {
      rawLog.push(line);
      lines.push(JSON.parse(line) as Line);
    },
  });
  const app = makeTestApp({ log, ...overrides });
  const listening = await serveOnLoopback(app.app.fetch);
  running.push(async () => {
    await listening.close();
    app.db.$client.close();
  });
  t = app;
  server = listening;
}

async function logIn(keyId: string, secret: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${server.url}/inbox/login`, {
    method: 'POST',
    headers: { origin: server.url, 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams({ key_id: keyId, secret }),
    redirect: 'manual',
  });
  return { status: response.status, headers: response.headers, html: await response.text() };
}

async function signInCounts(): Promise<Record<string, number>> {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  const counts: Record<string, number> = {};
  for (const [, outcome, value] of text.matchAll(/^textrelay_inbox_sign_ins_total\{outcome="(\w+)"\} (\d+)$/gm))
    counts[outcome!] = Number(value);
  return counts;
}

const lockWarnings = () => lines.filter((line) => line.level === 40 && /sign-in locked out/.test(line.msg));

describe('failed inbox sign-ins are throttled', () => {
  it('defaults to 10 failures per key id and per address in 15 minutes', () => {
    const config = loadConfig({});
    expect(config.TEXTRELAY_INBOX_LOGIN_MAX_FAILURES).toBe(10);
    expect(config.TEXTRELAY_INBOX_LOGIN_WINDOW_SECONDS).toBe(900);
    expect(config.TEXTRELAY_TRUST_PROXY).toBe(false);
    expect(() => loadConfig({ TEXTRELAY_INBOX_LOGIN_WINDOW_SECONDS: '0' })).toThrow(/TEXTRELAY_INBOX_LOGIN_WINDOW_SECONDS/);
    expect(() => loadConfig({ TEXTRELAY_INBOX_LOGIN_MAX_FAILURES: '-1' })).toThrow(/TEXTRELAY_INBOX_LOGIN_MAX_FAILURES/);
  });

  it('answers 429 with Retry-After after 10 wrong secrets, refuses even the right one, logs one warning and counts it', async () => {
    await serveApp();
    const account = await t.createAccount();

    for (let attempt = 1; attempt <= 10; attempt++)
      expect((await logIn(account.api_key_id, WRONG_SECRET)).status, `attempt ${attempt}`).toBe(401);
    const throttled = await logIn(account.api_key_id, WRONG_SECRET);
    expect(throttled.status).toBe(429);
    expect(Number(throttled.headers.get('retry-after'))).toBe(WINDOW_MS / 1000);
    expect(throttled.html).toContain('Too many failed sign-ins. Try again in 15 minutes.');

    // The right secret is refused too: answering it would tell a guesser it had found the secret.
    const rightButLocked = await logIn(account.api_key_id, account.api_secret_key);
    expect(rightButLocked.status).toBe(429);
    expect(rightButLocked.headers.get('set-cookie')).toBeNull();

    expect(await signInCounts()).toEqual({ signed_in: 0, wrong_credentials: 10, throttled: 2 });
    expect(lockWarnings()).toEqual([
      expect.objectContaining({
        keyId: account.api_key_id,
        clientAddress: '127.0.0.1',
        lockedBy: ['key_id', 'address'],
        retryAfterSeconds: 900,
      }),
    ]);
    expect(rawLog.join('\n')).not.toContain(WRONG_SECRET);
    expect(rawLog.join('\n')).not.toContain(account.api_secret_key);

    t.clock.advance(WINDOW_MS - 60_000);
    expect(Number((await logIn(account.api_key_id, account.api_secret_key)).headers.get('retry-after'))).toBe(60);
    t.clock.advance(60_000);
    const after = await logIn(account.api_key_id, account.api_secret_key);
    expect(after.status).toBe(303);
    expect(after.headers.get('location')).toBe('/inbox');
    expect((await signInCounts()).signed_in).toBe(1);
  });

  it('locks a client address that sprays key ids, and a key id tried from many addresses', async () => {
    await serveApp({ proxy: { trustForwardedHeaders: true } });
    const account = await t.createAccount();
    const other = await t.createAccount();

    // One address, a new key id each time: the address is what gets locked, for every key id.
    for (let attempt = 0; attempt < 10; attempt++)
      expect((await logIn(`key_made_up_${attempt}`, WRONG_SECRET, { 'x-forwarded-for': '203.0.113.7' })).status).toBe(401);
    expect((await logIn(other.api_key_id, other.api_secret_key, { 'x-forwarded-for': '203.0.113.7' })).status).toBe(429);
    expect((await logIn(other.api_key_id, other.api_secret_key, { 'x-forwarded-for': '203.0.113.8' })).status).toBe(303);

    // One key id, a new address each time: the key id is what gets locked, from everywhere.
    for (let attempt = 0; attempt < 10; attempt++)
      expect((await logIn(account.api_key_id, WRONG_SECRET, { 'x-forwarded-for': `198.51.100.${attempt}` })).status).toBe(401);
    expect((await logIn(account.api_key_id, account.api_secret_key, { 'x-forwarded-for': '198.51.100.200' })).status).toBe(429);
    expect(lockWarnings().map((line) => line.lockedBy)).toEqual([['address'], ['key_id']]);
  });

  it('ignores X-Forwarded-For unless the proxy is trusted: a forged header does not escape the lock', async () => {
    await serveApp();
    await t.createAccount();
    for (let attempt = 0; attempt < 10; attempt++) {
      expect((await logIn(`key_made_up_${attempt}`, WRONG_SECRET, { 'x-forwarded-for': `198.51.100.${attempt}` })).status).toBe(401);
    }
    const account = await t.createAccount();
    expect((await logIn(account.api_key_id, account.api_secret_key, { 'x-forwarded-for': '198.51.100.200' })).status).toBe(429);
    expect(lockWarnings()).toEqual([expect.objectContaining({ clientAddress: '127.0.0.1', lockedBy: ['address'] })]);
  });

  it('lets a key id that signed in start afresh, and turns off at 0', async () => {
    await serveApp({ proxy: { trustForwardedHeaders: true } });
    const account = await t.createAccount();
    for (let attempt = 0; attempt < 9; attempt++)
      await logIn(account.api_key_id, WRONG_SECRET, { 'x-forwarded-for': `198.51.100.${attempt}` });
    expect((await logIn(account.api_key_id, account.api_secret_key, { 'x-forwarded-for': '198.51.100.100' })).status).toBe(303);
    for (let attempt = 0; attempt < 9; attempt++) {
      expect((await logIn(account.api_key_id, WRONG_SECRET, { 'x-forwarded-for': `198.51.100.${attempt + 20}` })).status).toBe(401);
    }
    await stopAll();
    await serveApp({ signInThrottle: { maxFailures: 0 } });
    const unthrottled = await t.createAccount();
    for (let attempt = 0; attempt < 30; attempt++) expect((await logIn(unthrottled.api_key_id, WRONG_SECRET)).status).toBe(401);
    expect((await logIn(unthrottled.api_key_id, unthrottled.api_secret_key)).status).toBe(303);
  });
});
