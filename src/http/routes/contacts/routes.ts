import { createRoute, z } from '@hono/zod-openapi';
import { createContact, getContact, listContacts } from '../../../services/contacts.ts';
import type { ServiceDeps } from '../../../services/deps.ts';
import { API_SECURITY, apiErrors } from '../../openapi.ts';
import { apiRoute, createRouter } from '../../router.ts';
import { Contact, ContactIdParam, CreateContactBody, CreateContactResponse, GetContactResponse, ListContactsQuery } from './schemas.ts';

const createContactRoute = createRoute({
  method: 'post',
  path: '/accounts/contacts',
  tags: ['Contacts'],
  operationId: 'createContact',
  summary: 'Create a contact',
  security: API_SECURITY,
  request: { body: { content: { 'application/json': { schema: CreateContactBody } }, required: true } },
  responses: {
    200: { description: 'Created', content: { 'application/json': { schema: CreateContactResponse } } },
    ...apiErrors('contact', {
      400: 'Invalid phone number, missing field or malformed JSON (status "ERROR")',
      403: 'A new contact would pass the account\'s contacts quota (status "ERROR", the message names TEXTRELAY_CONTACTS_QUOTA)',
      409: 'A contact with this number already exists (status "ERROR", message "Contact already exists")',
    }),
  },
});

const getContactRoute = createRoute({
  method: 'get',
  path: '/accounts/contacts/{contact_id}',
  tags: ['Contacts'],
  operationId: 'getContact',
  summary: 'Get a contact',
  security: API_SECURITY,
  request: { params: ContactIdParam },
  responses: {
    200: { description: 'The contact', content: { 'application/json': { schema: GetContactResponse } } },
    ...apiErrors('contact', { 404: 'No such contact for this account (status "error", message "Contact not found")' }, { body: false }),
  },
});

const listContactsRoute = createRoute({
  method: 'get',
  path: '/accounts/contacts',
  tags: ['Contacts'],
  operationId: 'listContacts',
  summary: 'List contacts',
  security: API_SECURITY,
  request: { query: ListContactsQuery },
  responses: {
    200: { description: 'A page of contacts', content: { 'application/json': { schema: z.array(Contact) } } },
    ...apiErrors('contact', { 400: 'Invalid query parameter (status "ERROR")' }, { body: false }),
  },
});

export function contactsRouter(deps: ServiceDeps) {
  const middleware = apiRoute(deps, 'contact');
  const router = createRouter();

  router.openapi({ ...createContactRoute, middleware }, async (c) => {
    const body = c.req.valid('json');
    return c.json(await createContact(deps, c.get('account'), { ...body, phone: body.number }), 200);
  });

  router.openapi({ ...getContactRoute, middleware }, async (c) => {
    const contact = await getContact(deps, c.get('account'), c.req.valid('param').contact_id);
    return c.json({ status: 'OK', contact }, 200);
  });

  router.openapi({ ...listContactsRoute, middleware }, async (c) => {
    const query = c.req.valid('query');
    const contacts = await listContacts(deps, c.get('account'), {
      orderBy: query.order_by,
      direction: query.order_direction,
      limit: query.limit,
      offset: query.offset,
    });
    return c.json(contacts, 200);
  });

  return router;
}
