import { createRoute, type z } from '@hono/zod-openapi';
import type { ZodError } from 'zod';
import type { Metrics } from '../../../metrics/metrics.ts';
import type { ServiceDeps } from '../../../services/deps.ts';
import { limitIngestedInbound } from '../../../services/inbound-limits.ts';
import { receiveFromTransport } from '../../../services/receive-inbound.ts';
import { recordStatus } from '../../../services/record-status.ts';
import { validationError } from '../../../services/validation.ts';
import type { Transport } from '../../../transports/transport.ts';
import { type ProviderWebhookSecret, requireIngestCaller } from '../../ingest-auth.ts';
import { apiErrors, INGEST_SECURITY } from '../../openapi.ts';
import { createRouter, limitBody } from '../../router.ts';
import { EventIdHeader, IngestAnswer, ReceiveWebhookBody, StatusCallbackBody } from './schemas.ts';

export type IngestDeps = ServiceDeps & {
  /** Recorded as the source of ingested events, so a webhook-id is unique per transport. */
  transportName: Transport['name'];
  ingestSecrets: () => string[];
  /** The provider accounts' webhook secrets the upstream transport learned, each good for that provider account's tenants. */
  providerSecrets: () => readonly ProviderWebhookSecret[];
  metrics: Pick<Metrics, 'ingestDuplicate'>;
};

const OK_BODY: z.output<typeof IngestAnswer> = { status: 'OK' };

const INVALID_PAYLOAD = 'Invalid payload or malformed JSON (4000); nothing was written';

/**
 * The ingest routes' validation: what a transport reports has reached a phone already, so text
 * neither backend stores (a NUL, half a surrogate pair) is not refused as in the API, where its
 * sender can fix it; the services keep it with U+FFFD in its place.
 */
function refuseInvalidOnly(result: { success: true } | { success: false; error: ZodError }): undefined {
  if (!result.success) throw validationError(result.error);
  return undefined;
}

/** Writes go through the group commit: callbacks come in bursts (every message's every status), and a burst shares one commit. */
export function ingestRouter(deps: IngestDeps) {
  const middleware = [limitBody, requireIngestCaller(deps.ingestSecrets, deps.providerSecrets)];
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
      parameters: [EventIdHeader.parameter],
      request: { body: { content: { 'application/json': { schema: StatusCallbackBody } }, required: true } },
      responses: {
        200: {
          description: 'Recorded (or a duplicate or stale event: kept in the history, nothing changed)',
          content: { 'application/json': { schema: IngestAnswer } },
        },
        202: {
          description: 'Unknown handle: kept and applied once the message is known by it',
          content: { 'application/json': { schema: IngestAnswer } },
        },
        ...apiErrors('message', { 400: INVALID_PAYLOAD }, { body: true, writes: false }),
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
        sourceEventId: EventIdHeader.read(c) || undefined,
        reportedBy: c.get('ingestProviders'),
      };
      const outcome = await recordStatus(deps, report, { batched: true });
      if (outcome === 'duplicate_event') deps.metrics.ingestDuplicate('status');
      return outcome === 'unknown_handle' ? c.json(OK_BODY, 202) : c.json(OK_BODY, 200);
    },
    refuseInvalidOnly,
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
        200: {
          description: 'Stored (a redelivered message is recognised by its handle and stored once)',
          content: { 'application/json': { schema: IngestAnswer } },
        },
        202: {
          description:
            'No account owns to_number: kept as unrouted for the operator (textrelay status, tail, /metrics), given to no account',
          content: { 'application/json': { schema: IngestAnswer } },
        },
        ...apiErrors('message', { 400: INVALID_PAYLOAD }, { body: true, writes: true }),
      },
    }),
    async (c) => {
      const inbound = { ...c.req.valid('json'), source: deps.transportName, reportedBy: c.get('ingestProviders') };
      await limitIngestedInbound(deps, inbound);
      const outcome = await receiveFromTransport(deps, inbound, { batched: true });
      if (!outcome.created) deps.metrics.ingestDuplicate('receive');
      return c.json(OK_BODY, outcome.routed ? 200 : 202);
    },
    refuseInvalidOnly,
  );

  return router;
}
