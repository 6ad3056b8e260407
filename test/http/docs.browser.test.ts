/**
 * /docs in real headless Chromium with every request outside this origin refused: the page must
 * render the whole document and "Try it out" must reach the API, with nothing fetched from elsewhere.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable, launchChromium } from '../browser/chromium.ts';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { type Listening, serveOnLoopback } from '../helpers/listen.ts';

describe.skipIf(!chromiumAvailable('/docs browser test'))('/docs in a real browser, offline', () => {
  let t: TestApp;
  let server: Listening;
  let browser: Browser;

  beforeAll(async () => {
    t = makeTestApp();
    server = await serveOnLoopback(t.app.fetch);
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('renders every operation and webhook, and runs a request with the credentials given to Authorize', async () => {
    const account = await t.createAccount();
    const doc = (await (await t.app.request('/openapi.json')).json()) as {
      paths: Record<string, object>;
      webhooks: Record<string, object>;
    };
    const operationCount = Object.values(doc.paths).reduce((count, item) => count + Object.keys(item).length, 0);

    const page = await browser.newPage();
    page.setDefaultTimeout(20_000);
    const elsewhere: string[] = [];
    const problems: string[] = [];
    await page.route('**/*', (route) => {
      if (route.request().url().startsWith(`${server.url}/`)) return route.continue();
      elsewhere.push(route.request().url());
      return route.abort();
    });
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));

    await page.goto(`${server.url}/docs`);
    await page.locator('.opblock').first().waitFor();
    expect(await page.locator('.opblock').count()).toBe(operationCount + Object.keys(doc.webhooks).length);

    await page.getByRole('button', { name: 'Authorize' }).first().click();
    const schemes = page.locator('.modal-ux .auth-container');
    for (const [scheme, value] of [
      ['apiKeyId', account.api_key_id],
      ['apiSecretKey', account.api_secret_key],
    ] as const) {
      const form = schemes.filter({ hasText: scheme });
      await form.locator('input').fill(value);
      await form.locator('button.authorize').click();
    }
    await page.locator('.modal-ux button.btn-done').first().click();

    const operation = page.locator('#operations-Webhooks-getWebhookSettings');
    await operation.locator('.opblock-summary').click();
    await operation.getByRole('button', { name: 'Try it out' }).click();
    await operation.getByRole('button', { name: 'Execute' }).click();
    const status = operation.locator('.live-responses-table tbody .response-col_status').first();
    await status.waitFor();
    expect((await status.innerText()).trim()).toBe('200');

    expect(elsewhere, 'requests outside this origin').toEqual([]);
    expect(problems, 'console errors (a Content-Security-Policy refusal shows here)').toEqual([]);
  }, 60_000);
});
