import { z } from '@hono/zod-openapi';
import { ACCOUNT_EVENT_TYPES } from '../../../domain/account-events.ts';
import { headerParam } from '../../header-param.ts';

export const EventStreamQuery = z.object({
  types: z
    .string()
    .max(1000)
    .optional()
    .openapi({ description: `Comma-separated allowlist of event types: ${ACCOUNT_EVENT_TYPES.join(', ')}` }),
  last_event_id: z
    .string()
    .max(20)
    .optional()
    .openapi({ description: 'Resume after this event id, as the Last-Event-ID header does (the header wins)' }),
});

export const LastEventIdHeader = headerParam(
  'last-event-id',
  z.string().max(20).optional(),
  'Resume: every later event of the account is sent once, in order',
);

export const AccountEvent = z
  .object({
    id: z.string(),
    type: z.enum(ACCOUNT_EVENT_TYPES),
    occurred_at: z.string(),
    data: z.record(z.string(), z.unknown()),
    version: z.literal(1),
  })
  .openapi('AccountEvent', { description: 'Sent as the `data` line of each frame, after an `id` line with the same id' });
