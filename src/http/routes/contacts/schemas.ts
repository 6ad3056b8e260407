import { z } from '@hono/zod-openapi';
import { CONTACT_ORDER_FIELDS } from '../../../domain/contact-order.ts';
import { ContactNumber, Limit, Offset } from '../fields.ts';

export const CreateContactBody = z
  .object({
    firstName: z.string().max(200),
    lastName: z.string().max(200),
    number: ContactNumber,
    companyName: z.string().max(200).optional(),
  })
  .openapi('CreateContactRequest');

export const ListContactsQuery = z.object({
  order_by: z.enum(CONTACT_ORDER_FIELDS).default('last_date'),
  order_direction: z.enum(['asc', 'desc']).default('desc'),
  limit: Limit,
  offset: Offset,
});

export const ContactIdParam = z.object({ contact_id: z.string().min(1) });

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
