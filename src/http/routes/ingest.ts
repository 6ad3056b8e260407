import { createRoute, z } from '@hono/zod-openapi';
import { isHttpUrl } from '../../domain/media-url.ts';
import { PROGRESS_ORDER, type MessageStatus } from '../../domain/status.ts';
import type { Transport } from '../../transports/transport.ts';
import type { ServiceDeps } from '../../services/deps.ts';
import { receiveFromTransport } from '../../services/receive-inbound.ts';
import { recordStatus } from '../../services/record-status.ts';
import type { Metrics } from '../../metrics/metrics.ts';
import { requireIngestCaller } from '../ingest-auth.ts';
import { apiErrors, INGEST_SECURITY } from '../openapi.ts';
import { createRouter, limitBody } from '../router.ts';
import { phoneNumber } from '../schemas.ts';

export type IngestDeps = ServiceDeps & {
  /** Recorded as the source of ingested events, so a webhook-id is unique per transport. */
  transportName: Transport['name'];
  ingestSecrets: () => string[];
  metrics: Pick<Metrics, 'ingestDuplicate'>;
};

/** Inbound text comes from phones, not from our API: a blacklisted-looking sender is just an invalid one here. */
const Phone = phoneNumber({ blacklistIsItsOwnError: false });
/** Status callbacks carry the recipients of a group send as an array, and "" where a number does not apply. */
const PhoneOrList = z.union([z.literal(''), Phone, z.array(Phone).max(100)]);
const Handle = z.string().min(1).max(200);

/** The spec lists "failed" among callback statuses where its status table says ERROR: both mean ERROR. */
const IngestStatus = z
  .enum([...PROGRESS_ORDER, 'ERROR', 'FAILED'])
  .transform((status): MessageStatus => (status === 'FAILED' ? 'ERROR' : status))
  .openapi({ type: 'string', enum: [...PROGRESS_ORDER, 'ERROR', 'FAILED'] });

/** The status callback of the spec (contract section 7); fields not listed are ignored. */
export const StatusCallbackBody = z
  .object({
    message_handle: Handle,
    status: IngestStatus,
    error_code: z.number().int().nullable().optional(),
    error_message: z.string().max(2_000).nullable().optional(),
    was_downgraded: z.boolean().nullable().optional(),
    from_number: PhoneOrList.optional(),
    number: PhoneOrList.optional(),
    to_number: PhoneOrList.optional(),
  })
  .openapi('StatusCallbackIngest');

const InboundMediaUrl = z.string().refine((value) => value === '' || isHttpUrl(value), {
  message: 'media_url must be an absolute http or https URL',
});

/** The receive webhook (contract section 4b); fields not listed are ignored. */
const ReceiveWebhookBody = z
  .object({
    message_handle: Handle,
    number: Phone.optional(),
    from_number: Phone.optional(),
    to_number: Phone,
    // Not capped like sends: the message already exists on the phone network, refusing it would lose it.
    content: z.string().optional(),
    media_url: InboundMediaUrl.optional(),
    group_id: z.string().max(200).optional(),
    participants: z.array(Phone).max(100).optional(),
    service: z.enum(['iMessage', 'SMS']).optional(),
    was_downgraded: z.boolean().nullable().optional(),
  })
  .superRefine((body, ctx) => {
    if (body.number === undefined && body.from_number === undefined) {
      ctx.addIssue({ code: 'custom', message: 'number (or from_number) is required' });
    }
    if (!body.content && !body.media_url) ctx.addIssue({ code: 'custom', message: 'Either content or media_url is required' });
  })
  .transform((body) => ({
    from: (body.number ?? body.from_number)!,
    toNumber: body.to_number,
    content: body.content ?? '',
    mediaUrl: body.media_url ?? '',
    service: body.service ?? (body.was_downgraded ? ('SMS' as const) : ('iMessage' as const)),
    // A redelivered message is recognised by it.
    transportHandle: body.message_handle,
    transportGroupId: body.group_id || undefined,
    participants: body.participants,
  }))
  .openapi('ReceiveWebhookIngest');

const Ok = z.object({ status: z.literal('OK') }).openapi('IngestAnswer');
const OK_BODY = { status: 'OK' } as const;

const INVALID_PAYLOAD = 'Invalid payload or malformed JSON (4000); nothing was written';

const EVENT_ID_HEADER = z.object({
  'webhook-id': z.string().max(200).optional().openapi({ description: 'Standard Webhooks event id: the same id twice is recorded once' }),
});

/** Writes go through the group commit: callbacks come in bursts (every message's every status), and a burst shares one commit. */
export function ingestRouter(deps: IngestDeps) {
  const middleware = [limitBody, requireIngestCaller(deps.ingestSecrets)];
  const router = createRouter();

  router.openapi(
    createRoute({
      method: 'post',
      path: '/webhooks/status',
      tags: ['Transport callbacks'],
      operationId: 'ingestStatusCallback',
      summary: "A transport's status callback for a message it carries",
      security: INGEST_SECURITY,
      middleware,
      request: { headers: EVENT_ID_HEADER, body: { content: { 'application/json': { schema: StatusCallbackBody } }, required: true } },
      responses: {
        200: { description: 'Recorded (or a duplicate or stale event: kept in the history, nothing changed)', content: { 'application/json': { schema: Ok } } },
        202: { description: 'Unknown handle: kept and applied once the message is known by it', content: { 'application/json': { schema: Ok } } },
        ...apiErrors('message', { 400: INVALID_PAYLOAD }),
      },
    }),
    async (c) => {
      const body = c.req.valid('json');
      const report = {
        handle: body.message_handle,
        status: body.status,
        errorCode: body.error_code,
        errorMessage: body.error_message,
        wasDowngraded: body.was_downgraded,
        source: deps.transportName,
        sourceEventId: c.req.valid('header')['webhook-id'] || undefined,
      };
      const outcome = await deps.groupCommit.run(() => recordStatus(deps, report));
      if (outcome === 'duplicate_event') deps.metrics.ingestDuplicate('status');
      return outcome === 'unknown_handle' ? c.json(OK_BODY, 202) : c.json(OK_BODY, 200);
    },
  );

  router.openapi(
    createRoute({
      method: 'post',
      path: '/webhooks/receive',
      tags: ['Transport callbacks'],
      operationId: 'ingestReceivedMessage',
      summary: 'An end user texted one of our lines, directly or in a group',
      security: INGEST_SECURITY,
      middleware,
      request: { body: { content: { 'application/json': { schema: ReceiveWebhookBody } }, required: true } },
      responses: {
        200: { description: 'Stored (a redelivered message is recognised by its handle and stored once)', content: { 'application/json': { schema: Ok } } },
        202: {
          description: 'No account owns to_number: kept as unrouted for the operator (textrelay status, tail, /metrics), given to no account',
          content: { 'application/json': { schema: Ok } },
        },
        ...apiErrors('message', { 400: INVALID_PAYLOAD }),
      },
    }),
    async (c) => {
      const inbound = { ...c.req.valid('json'), source: deps.transportName };
      const outcome = await deps.groupCommit.run(() => receiveFromTransport(deps, inbound));
      if (!outcome.created) deps.metrics.ingestDuplicate('receive');
      return c.json(OK_BODY, outcome.routed ? 200 : 202);
    },
  );

  return router;
}
