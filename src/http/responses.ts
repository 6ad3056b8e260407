import { z } from '@hono/zod-openapi';
import { MESSAGE_STATUSES } from '../domain/status.ts';

/** Response schemas, for the OpenAPI document and for type-checking what handlers answer. */

const Numbers = z
  .union([z.string(), z.array(z.string())])
  .openapi({ description: "The end user's E.164 number; for an outbound group send, the recipients as an array" });

export const MessageObject = z
  .object({
    accountEmail: z.string(),
    content: z.string(),
    is_outbound: z.boolean().openapi({ description: 'true for a message the account sent, false for one it received' }),
    status: z.enum(MESSAGE_STATUSES),
    error_code: z.number().int().nullable().openapi({ description: 'null unless status is ERROR: 10001 failed to send, 10002 status unresolved' }),
    error_message: z.string().nullable(),
    error_detail: z.string().nullable(),
    message_handle: z.string().uuid(),
    date_sent: z.string().openapi({ description: 'ISO 8601, UTC' }),
    date_updated: z.string().openapi({ description: 'ISO 8601, UTC: the latest status change' }),
    from_number: z.string().openapi({ description: "The sender: the account's line for outbound messages" }),
    number: Numbers,
    to_number: Numbers,
    numbers: z.array(z.string()).optional().openapi({ description: 'Group sends only: the recipients (the announced rename of number)' }),
    to_numbers: z.array(z.string()).optional().openapi({ description: 'Group sends only: the recipients (the announced rename of to_number)' }),
    was_downgraded: z.boolean().nullable().openapi({ description: 'true when sent as SMS; null until the transport knows' }),
    plan: z.string(),
    media_url: z.string(),
    message_type: z.enum(['message', 'group']),
    group_id: z.string().openapi({ description: '"" for one-to-one messages' }),
    participants: z.array(z.string()),
    send_style: z.string().openapi({ description: '"" when none' }),
    opted_out: z.boolean(),
  })
  .openapi('Message');

export const StatusEvent = z.object({
  status: z.enum(MESSAGE_STATUSES),
  applied: z.boolean(),
  implied: z.boolean(),
  reason: z.string().nullable().openapi({ description: 'Why the event was not applied' }),
  error_code: z.number().int().nullable(),
  error_message: z.string().nullable(),
  source: z.string(),
  received_at: z.string(),
});

export const MessageWithHistory = MessageObject.extend({ history: z.array(StatusEvent).optional() }).openapi(
  'MessageWithHistory',
);

const SecondsNanos = z.object({ _seconds: z.number().int(), _nanoseconds: z.number().int() });

export const MessageListRecord = z
  .object({
    uuid: z.string(),
    message_handle: z.string(),
    date: z.string(),
    content: z.string(),
    media_url: z.string(),
    number: Numbers,
    to_number: Numbers,
    from_number: z.string(),
    is_outbound: z.boolean(),
    accountEmail: z.string(),
    status: z.enum(MESSAGE_STATUSES),
    error_code: z.number().int().nullable(),
    error_message: z.string().nullable(),
    error_detail: z.string().nullable(),
    was_downgraded: z.boolean().nullable(),
    allowSMS: z.boolean(),
    allow_sms: z.boolean(),
    sendStyle: z.string(),
    send_style: z.string(),
    type: z.string(),
    message_type: z.string(),
    callbackURL: z.string(),
    callback_url: z.string(),
    row_id: z.string().nullable(),
    date_sent: SecondsNanos,
    date_updated: SecondsNanos,
    phoneID: z.string(),
    group_id: z.string(),
  })
  .openapi('MessageListRecord');

export const MessageList = z.object({ messages: z.array(MessageListRecord) }).openapi('MessageList');

export const ContactData = z
  .object({
    account_email: z.string(),
    firstName: z.string(),
    lastName: z.string(),
    phone: z.string(),
    displayPhone: z.string(),
    companyName: z.string(),
  })
  .openapi('ContactData');

export const Contact = ContactData.extend({
  cid: z.string(),
  is_unread: z.boolean(),
  previewText: z.string(),
  last_date: z.string().openapi({ description: 'ISO 8601 time of the latest message; "" when none' }),
  displayDate: z.string().openapi({ description: 'M/D/YY h:mm AM/PM; "" when no message' }),
}).openapi('Contact');

export const CreateContactResponse = z
  .object({ status: z.literal('OK'), contact: z.string(), contactData: ContactData })
  .openapi('CreateContactResponse');

export const GetContactResponse = z.object({ status: z.literal('OK'), contact: Contact }).openapi('GetContactResponse');

export const ModifyGroupResponse = z
  .object({ status: z.literal('OK'), group_id: z.string(), modify_type: z.string(), number: z.string() })
  .openapi('ModifyGroupResponse');

export const MessageError = z
  .object({
    status: z.literal('ERROR'),
    error_code: z.number().int().openapi({
      description:
        '4000 validation, 4001 rate limited, 4002 blacklisted number, 4010 credentials, 4030 plan, 4040 not found, 4090 conflict, 5000 internal, 5003 overloaded',
      example: 4000,
    }),
    error_message: z.string(),
    message: z.string().openapi({ description: 'Same as error_message, for older clients' }),
    error_detail: z.string().nullable(),
  })
  .openapi('MessageError');

export const ContactError = z
  .object({ status: z.enum(['ERROR', 'error']).openapi({ description: 'Lower-case "error" for a contact not found (404)' }), message: z.string() })
  .openapi('ContactError');
