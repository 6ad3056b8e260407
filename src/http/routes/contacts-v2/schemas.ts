import { z } from '@hono/zod-openapi';
import { CONTACT_V2_ORDER_FIELDS } from '../../../domain/contact-view-v2.ts';
import { checkPhoneNumber } from '../../../domain/phone.ts';
import type { ContactFields } from '../../../services/contacts.ts';
import type { BulkContactInput } from '../../../services/contacts-v2.ts';

/** Contacts are keyed by phone; the SDK puts it in the path with `+` as is, some clients send %2B or no `+` at all. */
export const MAX_BULK_CONTACTS = 1000;
const MAX_LIST_LIMIT = 1000;
const MAX_LIST_OFFSET = 10_000;
const MAX_TEXT = 200;
const MAX_TAGS = 100;
const MAX_VARIABLES = 100;

const PHONE_EXAMPLE = '+14155550100';

/** An E.164 number whose problem message names the field it came in. */
function e164(field: string) {
  return z
    .string({ message: `${field} must be a string` })
    .transform((raw, ctx) => {
      const check = checkPhoneNumber(raw);
      if (check.ok) return check.e164;
      ctx.addIssue({ code: 'custom', message: `${field} must be an E.164 phone number, like ${PHONE_EXAMPLE}` });
      return z.NEVER;
    })
    .openapi({ type: 'string', example: PHONE_EXAMPLE });
}

const text = (field: string) =>
  z.string({ message: `${field} must be a string` }).max(MAX_TEXT, { message: `${field} must be at most ${MAX_TEXT} characters` });
const tags = z
  .array(z.string({ message: 'tags must be a list of strings' }).max(MAX_TEXT), { message: 'tags must be a list of strings' })
  .max(MAX_TAGS, { message: `tags holds at most ${MAX_TAGS} entries` });
const customVariables = z
  .record(z.string(), z.string({ message: 'custom_variables values must be strings' }), {
    message: 'custom_variables must be an object of strings',
  })
  .refine((value) => Object.keys(value).length <= MAX_VARIABLES, { message: `custom_variables holds at most ${MAX_VARIABLES} entries` });
const flag = (field: string) => z.boolean({ message: `${field} must be true or false` });

/** The fields a contact write may set, in both spellings the SDK documents; snake_case wins when both are sent. */
const contactFieldSpellings = {
  first_name: text('first_name').optional(),
  firstName: text('firstName').optional(),
  last_name: text('last_name').optional(),
  lastName: text('lastName').optional(),
  company_name: text('company_name').optional(),
  companyName: text('companyName').optional(),
  assigned_to_email: text('assigned_to_email').optional(),
  assignedToEmail: text('assignedToEmail').optional(),
  sendblue_number: e164('sendblue_number')
    .optional()
    .openapi({ description: "One of the account's lines: the contact is pinned to it if not pinned yet" }),
  sendblueNumber: e164('sendblueNumber').optional(),
  tags: tags.optional(),
  custom_variables: customVariables.optional(),
};

type FieldSpellings = z.output<z.ZodObject<typeof contactFieldSpellings>> & { opt_out?: boolean; optOut?: boolean };

/** Only what was sent: an absent field leaves the stored one alone. */
function toContactFields(body: FieldSpellings): ContactFields {
  const fields: ContactFields = {
    firstName: body.first_name ?? body.firstName,
    lastName: body.last_name ?? body.lastName,
    companyName: body.company_name ?? body.companyName,
    assignedToEmail: body.assigned_to_email ?? body.assignedToEmail,
    sendblueNumber: body.sendblue_number ?? body.sendblueNumber,
    tags: body.tags,
    customVariables: body.custom_variables,
    optedOut: body.opt_out ?? body.optOut,
  };
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
}

export const CreateContactV2Body = z
  .object({
    number: e164('number')
      .optional()
      .openapi({ description: 'E.164 number of the contact (required; phone_number and phoneNumber are older spellings)' }),
    phone_number: e164('phone_number').optional(),
    phoneNumber: e164('phoneNumber').optional(),
    ...contactFieldSpellings,
    update_if_exists: flag('update_if_exists').optional(),
  })
  .superRefine((body, ctx) => {
    if (body.number === undefined && body.phone_number === undefined && body.phoneNumber === undefined) {
      ctx.addIssue({ code: 'custom', message: `number is required (E.164, like ${PHONE_EXAMPLE})` });
    }
  })
  .transform((body) => ({
    phone: (body.number ?? body.phone_number ?? body.phoneNumber) as string,
    fields: toContactFields(body),
    updateIfExists: body.update_if_exists ?? false,
  }))
  .openapi('ContactCreateRequest');

export const UpdateContactV2Body = z
  .object({ ...contactFieldSpellings, opt_out: flag('opt_out').optional(), optOut: flag('optOut').optional() })
  .transform(toContactFields)
  .openapi('ContactUpdateRequest');

export const PhoneNumberParam = z.object({
  phoneNumber: z
    .string()
    .transform((raw, ctx) => {
      // `+` stays `+` in a path; a bare run of digits is an E.164 number without its `+`.
      const check = checkPhoneNumber(/^\d+$/.test(raw) ? `+${raw}` : raw);
      if (check.ok) return check.e164;
      ctx.addIssue({
        code: 'custom',
        message: `The phone number in the path must be E.164, like ${PHONE_EXAMPLE} (got ${raw.slice(0, 40)})`,
      });
      return z.NEVER;
    })
    .openapi({ param: { name: 'phoneNumber', in: 'path' }, type: 'string', example: PHONE_EXAMPLE }),
});

const clampedInt = (field: string, min: number, max: number, fallback: number) =>
  z.coerce
    .number({ message: `${field} must be a whole number` })
    .int({ message: `${field} must be a whole number` })
    .min(min, { message: `${field} must be at least ${min}` })
    .default(fallback)
    .transform((value) => Math.min(value, max))
    .openapi({ type: 'integer', minimum: min, default: fallback, description: `Values above ${max} are clamped` });

export const ListContactsV2Query = z
  .object({
    limit: clampedInt('limit', 1, MAX_LIST_LIMIT, 100),
    offset: clampedInt('offset', 0, MAX_LIST_OFFSET, 0),
    order_by: z
      .enum(CONTACT_V2_ORDER_FIELDS, { message: `order_by must be one of ${CONTACT_V2_ORDER_FIELDS.join(', ')}` })
      .default('created_at'),
    order_direction: z.enum(['asc', 'desc'], { message: 'order_direction must be asc or desc' }).default('desc'),
    // An unencoded `+` in a query string arrives as a space.
    phone_number: z
      .string()
      .transform((raw) => raw.replace(/^ (?=\d)/, '+'))
      .pipe(e164('phone_number'))
      .optional()
      .openapi({ type: 'string', example: PHONE_EXAMPLE }),
    cid: z.string().min(1, { message: 'cid must not be empty' }).optional().openapi({ description: 'A contact_id' }),
    created_at_gte: z
      .string()
      .transform((raw, ctx) => {
        const at = Date.parse(raw);
        if (!Number.isNaN(at)) return at;
        ctx.addIssue({ code: 'custom', message: 'created_at_gte must be an ISO 8601 date, like 2026-01-31T00:00:00Z' });
        return z.NEVER;
      })
      .optional()
      .openapi({ type: 'string', example: '2026-01-31T00:00:00Z' }),
  })
  .transform((query) => ({
    limit: query.limit,
    offset: query.offset,
    orderBy: query.order_by,
    direction: query.order_direction,
    phone: query.phone_number,
    contactId: query.cid,
    createdSince: query.created_at_gte,
  }));

const BulkContactItem = z
  .object({
    phone: e164('phone'),
    first_name: text('first_name').optional(),
    last_name: text('last_name').optional(),
    company_name: text('company_name').optional(),
    tags: tags.optional(),
    custom_variables: customVariables.optional(),
  })
  .transform((item): BulkContactInput => ({ phone: item.phone, fields: toContactFields(item) }))
  .openapi('BulkContactItem');

export const BulkCreateContactsBody = z
  .object({
    contacts: z
      .array(BulkContactItem, { message: 'contacts must be a list of contacts' })
      .min(1, { message: 'contacts must hold at least one contact' })
      .max(MAX_BULK_CONTACTS, { message: `contacts holds at most ${MAX_BULK_CONTACTS} contacts` }),
  })
  .openapi('ContactBulkCreateRequest');

export const BulkDeleteContactsBody = z
  .object({
    contact_ids: z
      .array(z.string({ message: 'contact_ids must be a list of strings' }).min(1), { message: 'contact_ids must be a list of strings' })
      .min(1, { message: 'contact_ids must hold at least one phone number or contact_id' })
      .max(MAX_BULK_CONTACTS, { message: `contact_ids holds at most ${MAX_BULK_CONTACTS} entries` })
      .openapi({ description: 'Phone numbers (E.164) or contact_ids; unknown ones are skipped' }),
  })
  .openapi('ContactBulkDeleteRequest');

export const OptOutBody = z.object({ number: e164('number'), opted_out: flag('opted_out').default(true) }).openapi('ContactOptOutRequest');

export const ContactV2 = z
  .object({
    contact_id: z.string(),
    phone: z.string(),
    first_name: z.string(),
    last_name: z.string(),
    company_name: z.string(),
    assigned_to_email: z.string(),
    sendblue_number: z.string().openapi({ description: "The line the contact is pinned to; '' when none" }),
    tags: z.array(z.string()),
    custom_variables: z.record(z.string(), z.string()),
    opt_out: z.boolean(),
    verified: z.boolean(),
    created_at: z.string().openapi({ description: 'ISO 8601' }),
  })
  .openapi('ContactV2');

export const ContactEnvelope = z.object({ status: z.literal('OK'), contact: ContactV2 }).openapi('ContactV2Response');
export const StatusOk = z.object({ status: z.literal('OK') }).openapi('ContactDeleteResponse');
export const CountResponse = z.object({ count: z.number().int() }).openapi('ContactCountResponse');
export const BulkCreateResponse = z.object({ status: z.literal('OK'), contacts: z.array(ContactV2) }).openapi('ContactBulkCreateResponse');
export const BulkDeleteResponse = z.object({ status: z.literal('OK'), amount: z.number().int() }).openapi('ContactBulkDeleteResponse');
export const OptOutResponse = z
  .object({ status: z.literal('OK'), number: z.string(), opted_out: z.boolean() })
  .openapi('ContactOptOutResponse');
