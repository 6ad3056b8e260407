/**
 * The inbox in real headless Chromium against a real `textrelay serve`: log in, send through the
 * API, watch the status reach READ without a reload, reply as the end user, see and replay the
 * receive webhook. Screenshots of every page, laptop and phone sized, land in test/artifacts/.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Receiver, startReceiver } from '../callbacks/receiver.ts';
import { api, type Credentials, eventually } from '../helpers/live.ts';
import { killAll, REPO_ROOT, type RunningServer, startServer } from '../helpers/process.ts';
import { chromiumAvailable, launchChromium } from './chromium.ts';

const ARTIFACTS = join(REPO_ROOT, 'test/artifacts');
const LAPTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };

/** 555-0105 is the sandbox's noisy number: every report twice and out of order, then READ. */
const NOISY = '+12125550105';
/** 555-0106 answers every message with "echo: <content>". */
const ECHO = '+12125550106';
/** A sandbox step of 600 ms: READ comes three steps (1.8 s) after the hand-over. */
const STEP_MS = '600';

const hasChromium = chromiumAvailable('inbox browser test');

/** The development account `serve` prints on an empty database. */
function devAccount(banner: string): Credentials {
  const field = (name: string) => new RegExp(`${name}:\\s+(\\S+)`).exec(banner)?.[1] ?? '';
  return { api_key_id: field('svc-api-key-id'), api_secret_key: field('svc-api-secret-key'), numbers: field('numbers').split(',') };
}

describe.skipIf(!hasChromium)('inbox in a real browser', () => {
  let dir: string;
  let server: RunningServer;
  let receiver: Receiver;
  let browser: Browser;
  let account: Credentials;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'textrelay-browser-'));
    mkdirSync(ARTIFACTS, { recursive: true });
    receiver = await startReceiver();
    server = await startServer([], {
      PORT: '0',
      TEXTRELAY_DB: join(dir, 'textrelay.db'),
      TEXTRELAY_SANDBOX_STEP_MS: STEP_MS,
      TEXTRELAY_DISPLAY_TZ: 'UTC',
      LOG_LEVEL: 'silent',
    });
    account = devAccount(server.banner);
    const webhooks = await api(server, account, 'POST', '/accounts/webhooks', { webhooks: [receiver.url('/receive')], type: 'receive' });
    expect(webhooks.status, JSON.stringify(webhooks.body)).toBe(200);
    browser = await launchChromium();
  }, 90_000); // a server and a browser to start on a loaded 2-core CI box

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await receiver?.close();
    await killAll();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  async function screenshot(page: Page, name: string): Promise<void> {
    await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
  }

  /** The same pages on a phone, signed in with the laptop's session. */
  async function onPhone(laptop: BrowserContext, paths: Record<string, string>): Promise<void> {
    const phone = await browser.newContext({
      viewport: PHONE,
      isMobile: true,
      hasTouch: true,
      deviceScaleFactor: 2,
      storageState: await laptop.storageState(),
    });
    const page = await phone.newPage();
    for (const [name, path] of Object.entries(paths)) {
      await page.goto(`${server.url}${path}`);
      await screenshot(page, `${name}-phone`);
    }
    await phone.close();
  }

  it('logs in, follows a send to READ live, replies as the end user and replays the receive webhook', { timeout: 120_000 }, async () => {
    const laptop = await browser.newContext({ viewport: LAPTOP });
    const page = await laptop.newPage();

    // Log in.
    await page.goto(`${server.url}/inbox`);
    expect(new URL(page.url()).pathname).toBe('/inbox/login');
    await page.fill('input[name=key_id]', account.api_key_id);
    await page.fill('input[name=secret]', account.api_secret_key);
    await screenshot(page, 'login-laptop');
    await page.click('button[type=submit]');
    await page.waitForURL(`${server.url}/inbox`);
    await page.waitForSelector('body[data-live="on"]');
    await expect.poll(() => page.textContent('main')).toContain('No conversations yet');

    // A send through the API appears in the open list, without a reload.
    await page.evaluate(() => ((window as unknown as { notReloaded: boolean }).notReloaded = true));
    const sent = await api(server, account, 'POST', '/api/send-message', {
      number: NOISY,
      content: 'Your table for two is confirmed for 8pm',
      status_callback: receiver.url('/status'),
    });
    expect(sent.status, JSON.stringify(sent.body)).toBe(202);
    const conversation = page.locator('.conversations a', { hasText: 'Your table for two' });
    await conversation.waitFor();
    // A group with the echo number, whose reply makes the group unread: it moves to the top, live.
    const group = await api(server, account, 'POST', '/api/send-group-message', {
      numbers: [ECHO, `${NOISY.slice(0, -1)}0`],
      content: 'Dinner on Friday?',
    });
    expect(group.status, JSON.stringify(group.body)).toBe(202);
    await page.locator('.conversations li:first-child.unread', { hasText: 'echo: Dinner on Friday?' }).waitFor();
    expect(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true);
    await screenshot(page, 'conversations-laptop');

    // Its status moves to READ in the open thread, without a reload; the open history stays open.
    await conversation.click();
    await page.waitForSelector('body[data-live="on"]');
    await page.evaluate(() => ((window as unknown as { notReloaded: boolean }).notReloaded = true));
    const message = page.locator(`#message-${sent.body.message_handle}`);
    await message.locator('summary').click();
    await message.locator('[data-status="READ"]').waitFor({ timeout: 30_000 });
    expect(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true);
    // The noisy number's duplicates and late SENTs are in the history, each with why it was not applied.
    await expect.poll(() => message.locator('.history li').count()).toBe(8);
    const history = await message.locator('.history').textContent();
    expect(history).toContain('not applied: duplicate');
    expect(history).toContain('not applied: stale');
    expect(await message.locator('.history').getAttribute('open')).not.toBeNull();

    // Reply as the end user with the composer.
    await page.fill('.composer textarea', 'Perfect, see you at 8!');
    await page.click('.composer button[type=submit]');
    await page.locator('.message.in', { hasText: 'Perfect, see you at 8!' }).waitFor();
    await message.locator('summary').click();
    await screenshot(page, 'conversation-laptop');
    const threadPath = new URL(page.url()).pathname;

    // The receive webhook went out; the deliveries page lists it, and Replay sends it again under the same id.
    const first = await eventually('the receive webhook of the reply', async () =>
      receiver.received.find((request) => request.path === '/receive' && request.json?.content === 'Perfect, see you at 8!'),
    );
    const webhookId = String(first.headers['webhook-id']);
    await page.click('nav >> text=Webhooks');
    const delivery = page.locator(`#delivery-${webhookId}`);
    await delivery.waitFor();
    expect(await delivery.textContent()).toContain('message.received');
    await delivery.locator('.d-delivered').waitFor();
    await delivery.locator('button', { hasText: 'Replay' }).click();
    await page.locator('.notice', { hasText: 'The delivery is queued again' }).waitFor();
    await eventually('the replayed webhook', async () =>
      receiver.received.filter((request) => request.headers['webhook-id'] === webhookId).length === 2 ? true : undefined,
    );
    await expect
      .poll(
        async () => {
          await page.reload();
          return delivery.locator('summary').textContent();
        },
        { timeout: 15_000, interval: 250 },
      )
      .toContain('2 attempts');
    await delivery.locator('summary').click();
    await screenshot(page, 'deliveries-laptop');

    await onPhone(laptop, { conversations: '/inbox', conversation: threadPath, deliveries: '/inbox/deliveries' });
    await laptop.close();
  });
});
