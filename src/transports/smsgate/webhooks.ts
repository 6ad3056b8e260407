import { Hono } from 'hono';
import { parseJson } from '../../domain/lenient-json.ts';
import type { SmsGateEventContext } from './events.ts';
import { applySmsGateEvent } from './events.ts';
import { webhookEventOf } from './mapping.ts';
import { SgEnvelope } from './schemas.ts';
import { signatureProblem } from './signature.ts';

export const SMSGATE_WEBHOOKS = '/webhooks/carriers/smsgate';
/** The one path every registered event posts to. */
export const EVENTS_PATH = '/events';

/**
 * The phone's webhooks. Each is checked against X-Signature over the raw body and X-Timestamp
 * before anything is parsed: unsigned, forged or stale, 401 and nothing recorded. A signed body
 * textrelay cannot read is answered 204 and logged: the phone would retry it for two days for
 * nothing. One that cannot be recorded now (the database) answers 500, and the phone retries it.
 */
export function smsGateWebhooks(context: SmsGateEventContext & { signingKey: string }) {
  const { deps, log } = context;
  const app = new Hono().basePath(SMSGATE_WEBHOOKS);

  app.post(EVENTS_PATH, async (c) => {
    const raw = await c.req.text();
    const problem = signatureProblem(
      context.signingKey,
      raw,
      { signature: c.req.header('x-signature'), timestamp: c.req.header('x-timestamp') },
      deps.clock.now(),
    );
    if (problem) {
      log.warn({ problem }, 'SMSGate webhook refused');
      return c.text(`Unauthorized: ${problem}`, 401);
    }
    const envelope = SgEnvelope.safeParse(parseJson(raw));
    if (!envelope.success) {
      log.warn({ body: raw.slice(0, 200) }, 'SMSGate webhook ignored: not an event envelope textrelay can read');
      return c.body(null, 204);
    }
    await applySmsGateEvent(context, webhookEventOf(envelope.data));
    return c.body(null, 204);
  });

  return app;
}
