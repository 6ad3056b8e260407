import SwaggerParser from '@apidevtools/swagger-parser';
import { describe, expect, it } from 'vitest';
import { ReceiveWebhookPayload, StatusCallbackPayload } from '../../src/http/routes/account-webhooks/schemas.ts';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { ALICE, BOB, CAROL, show } from '../helpers/fixtures.ts';

/**
 * Registered routes that are not the JSON API, so not in the document. Anything else registered
 * must be documented, and anything documented must be registered.
 */
const NOT_API: { pattern: RegExp; why: string }[] = [
  { pattern: /^\/inbox(\/|$)/, why: 'the web inbox: HTML pages for people, with their own session login' },
  { pattern: /^\/docs(\/|$)/, why: 'this viewer and its assets' },
  { pattern: /^\/openapi\.json$/, why: 'the document itself' },
  { pattern: /^\/metrics$/, why: 'Prometheus text for scrapers' },
  { pattern: /^\/media\//, why: 'stored media files, fetched by phones and browsers by their unguessable URL' },
];

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

type Operation = {
  operationId?: string;
  summary?: string;
  tags?: string[];
  security?: Record<string, string[]>[];
  requestBody?: unknown;
  responses: Record<string, { $ref?: string; content?: Record<string, { schema: { $ref?: string } }> }>;
};
type Document = {
  tags: { name: string }[];
  paths: Record<string, Partial<Record<(typeof METHODS)[number], Operation>>>;
  webhooks: Record<string, { post: Operation & { requestBody: { content: Record<string, { schema: { $ref: string } }> } } }>;
  components: { responses: Record<string, { content: Record<string, { schema: { $ref: string } }> }> };
};

async function documentOf(t: TestApp): Promise<Document> {
  const reply = await t.call('GET', '/openapi.json', undefined);
  expect(reply.status, show(reply.body)).toBe(200);
  return reply.body as Document;
}

function operations(doc: Document): { method: string; path: string; operation: Operation }[] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    METHODS.flatMap((method) => (item[method] ? [{ method, path, operation: item[method] }] : [])),
  );
}

/** `app.routes` as the document spells them: `GET /a/:id` becomes `get /a/{id}`, one entry per route. */
function registeredRoutes(t: TestApp): string[] {
  const routes = t.app.routes
    // app.use() registrations are middleware around routes, not endpoints of their own.
    .filter((route) => route.method !== 'ALL')
    .filter((route) => !NOT_API.some(({ pattern }) => pattern.test(route.path)))
    .map((route) => `${route.method.toLowerCase()} ${route.path.replace(/:(\w+)(\{[^}]*\})?/g, '{$1}')}`);
  return [...new Set(routes)].sort();
}

const documented = (doc: Document) =>
  operations(doc)
    .map(({ method, path }) => `${method} ${path}`)
    .sort();

/** The error body schema a response declares, through its shared component when it is one. */
function errorSchemaOf(doc: Document, response: Operation['responses'][string]): string | undefined {
  const resolved = response.$ref ? doc.components.responses[response.$ref.split('/').pop()!] : response;
  return resolved?.content?.['application/json']?.schema.$ref?.split('/').pop();
}

describe('/openapi.json', () => {
  it('documents every registered API route, and nothing that is not registered', async () => {
    const t = makeTestApp({ transportName: 'sandbox' });
    const doc = await documentOf(t);
    expect(documented(doc)).toEqual(registeredRoutes(t));
    expect(documented(doc)).toEqual(
      expect.arrayContaining(['get /healthz', 'post /sandbox/inbound', 'post /webhooks/status', 'post /webhooks/receive']),
    );
  });

  it('leaves out the sandbox route when the transport is not the sandbox', async () => {
    const t = makeTestApp({ transportName: 'upstream' });
    const doc = await documentOf(t);
    expect(documented(doc)).not.toContain('post /sandbox/inbound');
    expect(documented(doc)).toEqual(registeredRoutes(t));
  });

  it('is a valid OpenAPI 3.1 document whose references all resolve', async () => {
    const doc = await documentOf(makeTestApp());
    await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeDefined();
  });

  it('names, tags and summarises every operation, with unique operationIds', async () => {
    const doc = await documentOf(makeTestApp());
    const tagNames = doc.tags.map((tag) => tag.name);
    const all = [...operations(doc).map(({ operation }) => operation), ...Object.values(doc.webhooks).map((webhook) => webhook.post)];
    for (const operation of all) {
      expect(operation.operationId, show(operation)).toMatch(/^[a-z][A-Za-z]+$/);
      expect(operation.summary, operation.operationId).toBeTruthy();
      expect(operation.tags?.length, operation.operationId).toBe(1);
      expect(tagNames, operation.operationId).toContain(operation.tags![0]);
    }
    const ids = all.map((operation) => operation.operationId);
    expect(new Set(ids).size, show(ids)).toBe(ids.length);
  });

  it('declares the credentials of exactly the routes that refuse a caller without them, and their 401', async () => {
    const t = makeTestApp({ ingestSecrets: ['ingest-secret'] });
    const doc = await documentOf(t);
    for (const { method, path, operation } of operations(doc)) {
      const reply = await t.call(method.toUpperCase(), path.replace(/\{\w+\}/g, 'x'), undefined);
      const where = `${method} ${path} answered ${reply.status}`;
      if (reply.status === 401) {
        expect(operation.security?.length, where).toBeGreaterThan(0);
        expect(operation.responses['401']?.$ref, where).toBe('#/components/responses/Unauthorized');
      } else {
        expect(operation.tags, where).toEqual(['Health']);
        expect(operation.security, where).toBeUndefined();
      }
    }
    const schemes = new Set(operations(doc).flatMap(({ operation }) => (operation.security ?? []).flatMap(Object.keys)));
    expect([...schemes].sort()).toEqual(['apiKeyId', 'apiSecretKey', 'signingSecret']);
  });

  it('gives every API operation its 4xx answers, 500 and 503, in the error shape of its route', async () => {
    const doc = await documentOf(makeTestApp());
    for (const { method, path, operation } of operations(doc)) {
      if (operation.tags?.includes('Health')) continue;
      const where = `${method} ${path}`;
      const statuses = Object.keys(operation.responses);
      expect(statuses.filter((status) => status.startsWith('4')).length, where).toBeGreaterThan(0);
      expect(statuses, where).toEqual(expect.arrayContaining(['401', '500', '503']));
      // GETs never carry a body; every other method is measured against the 1 MiB limit first.
      expect(statuses.includes('413'), where).toBe(method !== 'get');
      const shape = operation.tags?.includes('Contacts') ? 'ContactError' : 'MessageError';
      for (const status of statuses.filter((status) => Number(status) >= 400 && status !== '401')) {
        expect(errorSchemaOf(doc, operation.responses[status]!), `${where} ${status}`).toBe(shape);
      }
    }
  });

  it('answers an oversized body in the shape its 413 documents', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const doc = await documentOf(t);
    const big = { content: 'x'.repeat(1024 * 1024 + 1) };
    for (const path of ['/api/send-message', '/accounts/contacts']) {
      const reply = await t.call('POST', path, account, big);
      expect(reply.status, show(reply.body)).toBe(413);
      const documentedShape = errorSchemaOf(doc, doc.paths[path]!.post!.responses['413']!);
      expect(Object.keys(reply.body).sort(), path).toEqual(
        documentedShape === 'ContactError' ? ['message', 'status'] : ['error_code', 'error_detail', 'error_message', 'message', 'status'],
      );
    }
  });
});

describe('the webhooks we send', () => {
  it('are in the 3.1 webhooks section, with the signature headers and their payload schemas', async () => {
    const doc = await documentOf(makeTestApp());
    expect(Object.keys(doc.webhooks).sort()).toEqual(['message.received', 'message.status']);
    const payloads = Object.values(doc.webhooks).map((webhook) => webhook.post.requestBody.content['application/json']!.schema.$ref);
    expect(payloads.sort()).toEqual(['#/components/schemas/ReceiveWebhookPayload', '#/components/schemas/StatusCallbackPayload']);
    for (const webhook of Object.values(doc.webhooks)) {
      const headers = (webhook.post as unknown as { parameters: { name: string; in: string }[] }).parameters;
      expect(headers.map((header) => header.name)).toEqual(
        expect.arrayContaining(['webhook-id', 'webhook-timestamp', 'webhook-signature', 'svc-signing-secret']),
      );
      expect(Object.keys(webhook.post.responses)).toEqual(expect.arrayContaining(['2XX', '410']));
    }
  });

  it('describe, field for field, the payloads the outbox holds for one-to-one and group messages', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const added = await t.call('POST', '/accounts/webhooks', account, { webhooks: ['http://127.0.0.1:9/in'], type: 'receive' });
    expect(added.status, show(added.body)).toBe(200);

    const single = await t.call('POST', '/api/send-message', account, {
      number: ALICE,
      content: 'hi',
      status_callback: 'http://127.0.0.1:9/status',
    });
    const group = await t.call('POST', '/api/send-group-message', account, {
      numbers: [ALICE, BOB, CAROL],
      content: 'hi all',
      status_callback: 'http://127.0.0.1:9/status',
    });
    expect([single.status, group.status], show([single.body, group.body])).toEqual([202, 202]);
    for (const inbound of [
      { number: ALICE, content: 'hello' },
      { number: BOB, content: 'hello all', group_id: group.body.group_id },
    ]) {
      const reply = await t.call('POST', '/sandbox/inbound', account, inbound);
      expect(reply.status, show(reply.body)).toBe(200);
    }

    const log = await t.call('GET', '/accounts/webhooks/deliveries', account);
    expect(log.status, show(log.body)).toBe(200);
    const byType = (type: string) => log.body.deliveries.filter((delivery: { event_type: string }) => delivery.event_type === type);
    expect(byType('message.status')).toHaveLength(2);
    expect(byType('message.received')).toHaveLength(2);
    // Strict: a field the payload gains or loses without the document following fails here.
    for (const delivery of byType('message.status')) StatusCallbackPayload.strict().parse(delivery.payload);
    for (const delivery of byType('message.received')) ReceiveWebhookPayload.strict().parse(delivery.payload);
  });
});

describe('/docs', () => {
  const EXTERNAL = /(?:src|href)\s*=\s*["']?(?:[a-z][a-z0-9+.-]*:)?\/\//i;

  it('serves the viewer page, whose every file comes from this process', async () => {
    const t = makeTestApp();
    const page = await t.app.request('/docs');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    // The browser itself refuses anything from elsewhere.
    expect(page.headers.get('content-security-policy')).toMatch(/default-src 'self'/);
    const html = await page.text();
    expect(html).not.toMatch(EXTERNAL);

    const files = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]!);
    expect(files.length).toBeGreaterThanOrEqual(4);
    const expectedType = (file: string) =>
      file.endsWith('.css') ? /^text\/css/ : file.endsWith('.js') ? /^text\/javascript/ : /^image\/png$/;
    for (const file of files) {
      expect(file, 'a path on this origin').toMatch(/^\/docs\//);
      const response = await t.app.request(file);
      expect(response.status, file).toBe(200);
      expect(response.headers.get('content-type'), file).toMatch(expectedType(file));
      expect((await response.arrayBuffer()).byteLength, file).toBeGreaterThan(0);
    }
  });

  it('points the viewer at /openapi.json with the online validator turned off', async () => {
    const init = await (await makeTestApp().app.request('/docs/init.js')).text();
    expect(init).toContain("url: '/openapi.json'");
    expect(init).toContain('validatorUrl: null');
    expect(init).not.toMatch(/https?:\/\//);
  });

  it("keeps swagger-ui's files for good under its version, and revalidates the page", async () => {
    const t = makeTestApp();
    const html = await (await t.app.request('/docs')).text();
    const bundle = html.match(/src="([^"]+swagger-ui-bundle\.js)"/)![1]!;
    expect((await t.app.request(bundle)).headers.get('cache-control')).toBe('public, max-age=31536000, immutable');

    const page = await t.app.request('/docs');
    expect(page.headers.get('cache-control')).toBe('no-cache');
    const again = await t.app.request('/docs', { headers: { 'if-none-match': page.headers.get('etag')! } });
    expect(again.status).toBe(304);
  });

  it("serves only the viewer's files from the package", async () => {
    const t = makeTestApp();
    const html = await (await t.app.request('/docs')).text();
    const root = html.match(/href="(\/docs\/assets\/[^/]+)\/swagger-ui\.css"/)![1]!;
    for (const path of [
      `${root}/package.json`,
      `${root}/swagger-initializer.js`,
      `${root}/..%2Fpackage.json`,
      '/docs/assets/0.0.0/swagger-ui.css',
    ]) {
      const reply = await t.call('GET', path, undefined);
      expect(reply.status, path).toBe(404);
    }
  });
});
