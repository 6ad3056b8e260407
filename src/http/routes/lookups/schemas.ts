import { z } from '@hono/zod-openapi';
import { QueryPhoneNumber } from '../fields.ts';

/** lookups.lookupNumber and lines.getState of the SDK. */

export const LookupQuery = z.object({ number: QueryPhoneNumber.openapi({ description: 'E.164 number to look up (encode + as %2B)' }) });

export const LookupAnswer = z.object({ number: z.string(), service: z.enum(['iMessage', 'SMS']) }).openapi('LookupNumberResponse');

const LineStateSchema = z
  .object({
    sendblue_number: z.string(),
    worker_id: z.string().openapi({ description: "textrelay's stable id of the line (a message listing filter)" }),
    assignment: z.enum(['assigned', 'shared', 'grace_period']),
    status: z.enum(['ONLINE', 'OFFLINE', 'DEGRADED', 'UNKNOWN']),
    status_changed_at: z.string().openapi({ description: 'ISO 8601, UTC' }),
    degraded_since: z.string().nullable(),
    effective_until: z.string().nullable(),
    offline_reason: z.string().optional().openapi({
      description: 'Why this textrelay cannot serve the line (e.g. bound to no carrier, or not a number of the carrier account)',
    }),
    carrier: z
      .object({
        name: z.string(),
        reachable: z.boolean().nullable().openapi({ description: 'null before textrelay first asked it anything' }),
        last_error: z.string().nullable(),
        sends: z.number().int(),
        events: z.number().int(),
      })
      .optional()
      .openapi({
        description: 'The carrier delivering the line (TEXTRELAY_TRANSPORT bluebubbles, twilio, smsgate), as this instance sees it',
      }),
  })
  .openapi('LineState');

export const LineStates = z
  .object({ status: z.literal('OK'), snapshot_at: z.string(), data: z.array(LineStateSchema) })
  .openapi('LineStatesResponse');
