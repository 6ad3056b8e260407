import { Hono } from 'hono';
import { validateRequest } from 'twilio/lib/webhooks/webhooks.js';
import { storableText } from '../../domain/storable-text.ts';
import type { Account } from '../../services/accounts.ts';
import { fetchAndStoreMedia, mediaUrlOf } from '../../services/media.ts';
import { receiveFromTransport } from '../../services/receive-inbound.ts';
import { recordStatus } from '../../services/record-status.ts';
import type { CarrierContext } from '../carriers/carrier.ts';
import { describeFailure } from '../carriers/scrub.ts';
import { inboundOf, statusEventOf, statusReportOf, type TwilioForm } from './mapping.ts';

export const TWILIO_WEBHOOKS = '/webhooks/carriers/twilio';
const EMPTY_TWIML = '<?xml version="1.0" encoding="UTF-8"?><Response/>';

/**
 * The form as Twilio signed it (every field as received, a repeated one with each of its values),
 * and as textrelay reads it: the first value of each field, a NUL (which PostgreSQL cannot
 * store, nor even look up) as U+FFFD, the same on both backends.
 */
function fieldsOf(body: string): { signed: Record<string, string | string[]>; form: TwilioForm } {
  const signed: Record<string, string | string[]> = {};
  const form: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(body)) {
    const earlier = signed[name];
    signed[name] = earlier === undefined ? value : [...(Array.isArray(earlier) ? earlier : [earlier]), value];
    form[name] ??= storableText(value);
  }
  return { signed, form };
}

/**
 * Twilio's status callbacks and inbound messages. Each is checked against X-Twilio-Signature over
 * the public URL Twilio was given (TEXTRELAY_PUBLIC_URL plus the path and query as received) before
 * anything is recorded: forged or unsigned, 403.
 */
export function twilioWebhooks(context: CarrierContext, authToken: string) {
  const { deps, health, log, publicUrl } = context;
  const app = new Hono<{ Variables: { form: TwilioForm } }>().basePath(TWILIO_WEBHOOKS);

  app.use('*', async (c, next) => {
    const signature = c.req.header('x-twilio-signature') ?? '';
    const requested = new URL(c.req.url);
    const { signed, form } = fieldsOf(await c.req.text());
    if (signature === '' || !validateRequest(authToken, signature, `${publicUrl}${requested.pathname}${requested.search}`, signed)) {
      log.warn({ path: requested.pathname }, 'Twilio webhook refused: missing or wrong X-Twilio-Signature');
      return c.text('Forbidden: X-Twilio-Signature does not match', 403);
    }
    c.set('form', form);
    await next();
  });

  app.post('/status', async (c) => {
    const form = c.get('form');
    const event = statusEventOf(form);
    if (event.kind === 'ignored') {
      log.info({ reason: event.reason }, 'Twilio status callback ignored');
      return c.body(null, 204);
    }
    health.event(form.From);
    if (event.errorMessage !== null) health.lineFailed(event.errorMessage, form.From);
    // Our handle rides in the callback URL (signed with it), so a callback that beats the create's answer still finds its message.
    const handle = storableText(c.req.query('m') ?? '') || event.sid;
    await recordStatus(deps, statusReportOf(handle, event, form.From), { batched: true });
    return c.body(null, 204);
  });

  /** One of an MMS's pictures fetched and stored as the line's account's media; '' when it cannot be, so the text still arrives. */
  async function storedMediaUrl(account: Account, sid: string, url: string, index: number): Promise<string> {
    try {
      const media = await fetchAndStoreMedia({ ...deps, fetchMedia: context.fetchMedia }, account, url, {
        field: `MediaUrl${index}`,
        kind: 'media',
      });
      return mediaUrlOf(publicUrl, media);
    } catch (error) {
      log.warn({ sid, attachment: index, err: describeFailure(error, context.scrub) }, 'could not fetch an inbound MMS attachment');
      return '';
    }
  }

  app.post('/inbound', async (c) => {
    const inbound = inboundOf(c.get('form'));
    if (!inbound) return c.text('Bad Request: MessageSid, From and To are required', 400);
    health.event(inbound.to);
    const answer = () => c.body(EMPTY_TWIML, 200, { 'content-type': 'text/xml' });
    const account = await deps.store.accounts.findByServiceNumber(inbound.to);
    // The API's message carries one media_url, so each further picture of an MMS arrives as a message of its own, in order.
    const attachments = inbound.mediaUrls.length > 0 ? inbound.mediaUrls : [undefined];
    for (const [index, url] of attachments.entries()) {
      const handle = index === 0 ? inbound.sid : `${inbound.sid}/${index}`;
      // Twilio may post one message twice: the second changes nothing and fetches nothing.
      if (await deps.store.messages.findByAnyHandle(handle)) continue;
      await receiveFromTransport(
        deps,
        {
          from: inbound.from,
          toNumber: inbound.to,
          content: index === 0 ? inbound.content : '',
          mediaUrl: account && url !== undefined ? await storedMediaUrl(account, inbound.sid, url, index) : '',
          service: 'SMS',
          source: 'twilio',
          transportHandle: handle,
          optOut: index === 0 ? inbound.optOut : undefined,
        },
        { batched: true },
      );
    }
    return answer();
  });

  return app;
}
