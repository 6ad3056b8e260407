import { z } from '@hono/zod-openapi';
import { isHttpUrl } from '../../../domain/media-url.ts';
import { type MessageStatus, PROGRESS_ORDER } from '../../../domain/status.ts';
import type { InboundService } from '../../../domain/webhook-payloads.ts';
import { headerParam } from '../../header-param.ts';
import { PlainNumber } from '../fields.ts';

/** Inbound text comes from phones, not from our API: a blacklisted-looking sender is just an invalid one here. */
const Phone = PlainNumber;
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

/** A transport that does not name the service implies it: a downgraded message came as SMS. */
function inboundServiceOf(wasDowngraded: boolean | null | undefined): InboundService {
  return wasDowngraded ? 'SMS' : 'iMessage';
}

const InboundMediaUrl = z.string().refine((value) => value === '' || isHttpUrl(value), {
  message: 'media_url must be an absolute http or https URL',
});

/**
 * A number of an inbound message, as the transport spells it: normalised by the service, and kept
 * as unrouted when it cannot be read, for a refused message may never be sent again.
 */
const InboundNumber = z
  .string()
  .max(100)
  .openapi({ type: 'string', example: '+14155550100', description: 'Phone number, E.164 or any spelling of one' });

/** The receive webhook (contract section 4b); fields not listed are ignored. */
export const ReceiveWebhookBody = z
  .object({
    message_handle: Handle,
    number: InboundNumber.optional(),
    from_number: InboundNumber.optional(),
    to_number: InboundNumber,
    // Not capped like sends: the message already exists on the phone network, refusing it would lose it.
    content: z.string().optional(),
    media_url: InboundMediaUrl.optional(),
    group_id: z.string().max(200).optional(),
    participants: z.array(InboundNumber).max(100).optional(),
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
    service: body.service ?? inboundServiceOf(body.was_downgraded),
    // A redelivered message is recognised by it.
    transportHandle: body.message_handle,
    transportGroupId: body.group_id || undefined,
    participants: body.participants,
  }))
  .openapi('ReceiveWebhookIngest');

export const IngestAnswer = z.object({ status: z.literal('OK') }).openapi('IngestAnswer');
export const EventIdHeader = headerParam(
  'webhook-id',
  z.string().max(200).optional(),
  'Standard Webhooks event id: the same id twice is recorded once',
);
