import { timingSafeEqual } from 'node:crypto';
import { Hono } from 'hono';
import type { BbEvent } from './mapping.ts';
import { mapWebhookEvent } from './mapping.ts';
import { BbMessage, BbWebhookEvent } from './schemas.ts';

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * The webhook BlueBubbles posts to, at `<ingest path>/<secret>`: BlueBubbles signs nothing, so
 * the long random secret in the URL is the only proof of who calls; without it, 404 and nothing
 * is recorded. The event is recorded before the answer; BlueBubbles ignores the answer anyway.
 */
export function createBlueBubblesIngest(options: { secret: () => string | undefined; apply: (event: BbEvent) => Promise<void> }) {
  const router = new Hono();
  router.post('/:secret', async (c) => {
    const expected = options.secret();
    if (expected === undefined || !sameSecret(c.req.param('secret'), expected)) return c.json({ status: 404, message: 'Not Found' }, 404);
    const body = BbWebhookEvent.safeParse(await c.req.json().catch(() => undefined));
    if (!body.success) return c.json({ status: 400, message: 'expected {"type", "data"}' }, 400);
    const message = BbMessage.safeParse(body.data.data);
    if (message.success) await options.apply(mapWebhookEvent(body.data.type, message.data));
    return c.json({ status: 200, message: 'OK' });
  });
  return router;
}
