import { createRoute, type z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { ErrorCode } from '../../../domain/error-codes.ts';
import { AppError } from '../../../services/app-error.ts';
import {
  bulkCreateContactsV2,
  bulkDeleteContactsV2,
  countContactsV2,
  createContactV2,
  deleteContactV2,
  getContactV2,
  listContactsV2,
  optOutContactV2,
  updateContactV2,
} from '../../../services/contacts-v2.ts';
import { limitWrites } from '../../../services/rate-limiter.ts';
import { refuseUnstorableText, validationError } from '../../../services/validation.ts';
import type { AppDeps } from '../../app-deps.ts';
import type { AppEnv } from '../../env.ts';
import { API_SECURITY, apiErrors } from '../../openapi.ts';
import { answerOrRelay } from '../../provider-answers.ts';
import { apiRoute, createRouter, sentInput } from '../../router.ts';
import {
  BulkCreateContactsBody,
  BulkCreateResponse,
  BulkDeleteContactsBody,
  BulkDeleteResponse,
  ContactEnvelope,
  ContactV2,
  CountResponse,
  CreateContactV2Body,
  ListContactsV2Query,
  OptOutBody,
  OptOutResponse,
  PhoneNumberParam,
  StatusOk,
  UpdateContactV2Body,
} from './schemas.ts';

const json = <T extends z.ZodType>(schema: T, description: string) => ({ description, content: { 'application/json': { schema } } });
const body = <T extends z.ZodType>(schema: T) => ({ body: { content: { 'application/json': { schema } }, required: true } });
const common = { tags: ['Contacts (SDK)'], security: API_SECURITY };
const DUPLICATE = 'The number is already a contact (4090, x-should-retry: false)';

// The fixed paths are declared before /{phoneNumber}, which would otherwise take "count" for a number.
const countRoute = createRoute({
  ...common,
  method: 'get',
  path: '/api/v2/contacts/count',
  operationId: 'contactsCount',
  summary: 'How many contacts the account has (SDK contacts.count)',
  responses: { 200: json(CountResponse, 'The count'), ...apiErrors('message', {}, { body: false }) },
});

const bulkCreateRoute = createRoute({
  ...common,
  method: 'post',
  path: '/api/v2/contacts/bulk',
  operationId: 'contactsBulkCreate',
  summary: 'Create up to 1000 contacts, all or nothing (SDK contacts.bulk.create)',
  request: body(BulkCreateContactsBody),
  responses: {
    200: json(BulkCreateResponse, 'The contacts, in input order'),
    ...apiErrors('message', {
      400: 'An invalid item (4000; error_detail names it, like contacts[3])',
      403: "The batch would pass the account's contacts quota, counting every item (4031, TEXTRELAY_CONTACTS_QUOTA)",
      409: 'A number already a contact, or twice in the batch (4090; error_detail names the item)',
    }),
  },
});

const optOutRoute = createRoute({
  ...common,
  method: 'post',
  path: '/api/v2/contacts/opt-out',
  operationId: 'contactsOptOut',
  summary: 'Opt a number out of messages, or back in (SDK contacts.optOut)',
  request: body(OptOutBody),
  responses: { 200: json(OptOutResponse, 'The opt-out state now'), ...apiErrors('message', { 400: 'Invalid number (4000)' }) },
});

const createContactRoute = createRoute({
  ...common,
  method: 'post',
  path: '/api/v2/contacts',
  operationId: 'contactsCreate',
  summary: 'Create a contact (SDK contacts.create)',
  request: body(CreateContactV2Body),
  responses: {
    200: json(ContactEnvelope, 'The contact'),
    ...apiErrors('message', {
      400: "Invalid field, or a sendblue_number that is not the account's line (4000)",
      403: "A new contact would pass the account's contacts quota (4031, TEXTRELAY_CONTACTS_QUOTA)",
      409: DUPLICATE,
    }),
  },
});

const listContactsRoute = createRoute({
  ...common,
  method: 'get',
  path: '/api/v2/contacts',
  operationId: 'contactsList',
  summary: 'List contacts, as a bare array (SDK contacts.list)',
  request: { query: ListContactsV2Query },
  responses: {
    200: json(ContactV2.array(), 'A page of contacts'),
    ...apiErrors('message', { 400: 'Invalid query parameter (4000)' }, { body: false }),
  },
});

const bulkDeleteRoute = createRoute({
  ...common,
  method: 'delete',
  path: '/api/v2/contacts',
  operationId: 'contactsBulkDelete',
  summary: 'Delete contacts by number or contact_id (SDK contacts.bulk.delete)',
  request: body(BulkDeleteContactsBody),
  responses: {
    200: json(BulkDeleteResponse, 'How many were deleted'),
    ...apiErrors('message', { 400: 'Empty or invalid contact_ids (4000)' }),
  },
});

const NOT_FOUND = 'No contact with that number (4040)';
const BAD_PATH = 'The number in the path is not E.164 (4000)';

const retrieveRoute = createRoute({
  ...common,
  method: 'get',
  path: '/api/v2/contacts/{phoneNumber}',
  operationId: 'contactsRetrieve',
  summary: 'Get a contact by number (SDK contacts.retrieve)',
  request: { params: PhoneNumberParam },
  responses: { 200: json(ContactEnvelope, 'The contact'), ...apiErrors('message', { 400: BAD_PATH, 404: NOT_FOUND }, { body: false }) },
});

const updateRoute = createRoute({
  ...common,
  method: 'put',
  path: '/api/v2/contacts/{phoneNumber}',
  operationId: 'contactsUpdate',
  summary: 'Change a contact (SDK contacts.update)',
  request: { params: PhoneNumberParam, ...body(UpdateContactV2Body) },
  responses: {
    200: json(ContactEnvelope, 'The contact'),
    ...apiErrors('message', { 400: `${BAD_PATH}, or an invalid field`, 404: NOT_FOUND }),
  },
});

const deleteRoute = createRoute({
  ...common,
  method: 'delete',
  path: '/api/v2/contacts/{phoneNumber}',
  operationId: 'contactsDelete',
  summary: 'Delete a contact; its messages and line stay (SDK contacts.delete)',
  request: { params: PhoneNumberParam },
  responses: { 200: json(StatusOk, 'Deleted'), ...apiErrors('message', { 400: BAD_PATH, 404: NOT_FOUND }) },
});

/** A bulk item's problem names the item, in the message and in error_detail; other problems answer as usual. */
function bulkItemHook(result: { success: true } | { success: false; error: z.ZodError }): undefined {
  if (result.success) return undefined;
  const issue = result.error.issues.find((candidate) => candidate.path[0] === 'contacts' && typeof candidate.path[1] === 'number');
  if (!issue) throw validationError(result.error);
  const item = `contacts[${String(issue.path[1])}]`;
  const field = issue.path.slice(2).join('.');
  // Our own checks name their field; zod's built-in ones need it named.
  const problem = issue.code === 'custom' || field === '' ? issue.message : `${field}: ${issue.message}`;
  throw new AppError(ErrorCode.validation, `${item}: ${problem}`, { detail: item });
}

/** What the caller sent, as it sent it: relay mode forwards it unchanged (hono kept the parsed body). */
async function forwardedBody(deps: AppDeps, c: Context<AppEnv>): Promise<unknown> {
  return deps.providers ? c.req.json() : undefined;
}

export function contactsV2Router(deps: AppDeps) {
  const middleware = apiRoute(deps, 'message');
  const bulkMiddleware = apiRoute(deps, 'message', 'by handler');
  const router = createRouter();

  router.openapi({ ...countRoute, middleware }, async (c) => c.json(await countContactsV2(deps, c.get('account')), 200));

  router.openapi(
    { ...bulkCreateRoute, middleware: bulkMiddleware },
    async (c) => {
      const body = c.req.valid('json');
      // The hook of this route replaces the shared one, which would have checked this.
      await refuseUnstorableText(body, sentInput(c, 'json'));
      const { contacts } = body;
      await limitWrites(deps, c.get('account').id, contacts.length);
      return answerOrRelay(c, await bulkCreateContactsV2(deps, c.get('account'), contacts, await forwardedBody(deps, c)));
    },
    bulkItemHook,
  );

  router.openapi({ ...optOutRoute, middleware }, async (c) => {
    const input = c.req.valid('json');
    return answerOrRelay(c, await optOutContactV2(deps, c.get('account'), input.number, input.opted_out, await forwardedBody(deps, c)));
  });

  router.openapi({ ...createContactRoute, middleware }, async (c) => {
    return answerOrRelay(c, await createContactV2(deps, c.get('account'), c.req.valid('json'), await forwardedBody(deps, c)));
  });

  router.openapi({ ...listContactsRoute, middleware }, async (c) =>
    c.json(await listContactsV2(deps, c.get('account'), c.req.valid('query')), 200),
  );

  router.openapi({ ...bulkDeleteRoute, middleware: bulkMiddleware }, async (c) => {
    const ids = c.req.valid('json').contact_ids;
    await limitWrites(deps, c.get('account').id, ids.length);
    return answerOrRelay(c, await bulkDeleteContactsV2(deps, c.get('account'), ids, await forwardedBody(deps, c)));
  });

  router.openapi({ ...retrieveRoute, middleware }, async (c) =>
    c.json(await getContactV2(deps, c.get('account'), c.req.valid('param').phoneNumber), 200),
  );

  router.openapi({ ...updateRoute, middleware }, async (c) => {
    const phone = c.req.valid('param').phoneNumber;
    return answerOrRelay(c, await updateContactV2(deps, c.get('account'), phone, c.req.valid('json'), await forwardedBody(deps, c)));
  });

  router.openapi({ ...deleteRoute, middleware }, async (c) => {
    return answerOrRelay(c, await deleteContactV2(deps, c.get('account'), c.req.valid('param').phoneNumber));
  });

  return router;
}
