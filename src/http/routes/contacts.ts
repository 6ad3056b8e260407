import { createRoute } from '@hono/zod-openapi';
import { createContact, getContact, listContacts } from '../../services/contacts.ts';
import type { ServiceDeps } from '../../services/deps.ts';
import { Contact, contactErrors, CreateContactResponse, GetContactResponse } from '../responses.ts';
import { apiRoute, createRouter, SECURITY } from '../router.ts';
import { ContactIdParam, CreateContactBody, ListContactsQuery } from '../schemas.ts';
import { z } from '@hono/zod-openapi';

export function contactsRouter(deps: ServiceDeps) {
  const middleware = apiRoute(deps, 'contact');
  const router = createRouter();

  router.openapi(
    createRoute({
      method: 'post',
      path: '/accounts/contacts',
      tags: ['Contacts'],
      summary: 'Create a contact',
      security: SECURITY,
      middleware,
      request: { body: { content: { 'application/json': { schema: CreateContactBody } }, required: true } },
      responses: {
        200: { description: 'Created', content: { 'application/json': { schema: CreateContactResponse } } },
        ...contactErrors({ 400: 'Invalid phone number or field', 409: 'Contact already exists' }),
      },
    }),
    (c) => {
      const body = c.req.valid('json');
      const created = createContact(deps, c.get('account'), { ...body, phone: body.number });
      return c.json(created, 200);
    },
  );

  router.openapi(
    createRoute({
      method: 'get',
      path: '/accounts/contacts/{contact_id}',
      tags: ['Contacts'],
      summary: 'Get a contact',
      security: SECURITY,
      middleware,
      request: { params: ContactIdParam },
      responses: {
        200: { description: 'The contact', content: { 'application/json': { schema: GetContactResponse } } },
        ...contactErrors({ 404: 'Contact not found' }),
      },
    }),
    (c) => {
      const contact = getContact(deps, c.get('account'), c.req.valid('param').contact_id);
      return c.json({ status: 'OK' as const, contact }, 200);
    },
  );

  router.openapi(
    createRoute({
      method: 'get',
      path: '/accounts/contacts',
      tags: ['Contacts'],
      summary: 'List contacts',
      security: SECURITY,
      middleware,
      request: { query: ListContactsQuery },
      responses: {
        200: { description: 'A page of contacts', content: { 'application/json': { schema: z.array(Contact) } } },
        ...contactErrors({ 400: 'Invalid query' }),
      },
    }),
    (c) => {
      const query = c.req.valid('query');
      const contacts = listContacts(deps, c.get('account'), {
        orderBy: query.order_by,
        direction: query.order_direction,
        limit: query.limit,
        offset: query.offset,
      });
      return c.json(contacts, 200);
    },
  );

  return router;
}
