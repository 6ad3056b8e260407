/**
 * The app's own route table and OpenAPI document, read the way the generated tests (fuzzing, the
 * auth matrix) need them: a route added to the app is picked up by those tests without a list to edit.
 */
import type { TestApp } from './app.ts';

export type Route = {
  method: string;
  /** Hono's spelling: `/accounts/contacts/:contact_id`, `/docs/*`. */
  path: string;
};

/** `METHOD path`: how tables and test names refer to a route. */
export function routeKey(route: Route): string {
  return `${route.method} ${route.path}`;
}

/** Middleware on every path: no route of its own. */
const GLOBAL_PATHS = new Set(['*', '/*']);

/**
 * Every route the app answers, once each. `app.routes` lists middleware beside handlers: a
 * route's own middleware repeats its method and path (de-duplication removes it), and middleware
 * on every path is registered for ALL methods on `*`. Any other ALL entry may be a handler
 * (static assets served by `use('/docs/*', ...)`, an `all()` route), so it is kept as GET, and
 * as POST too where the path is concrete; a guard mistaken for a route only adds harmless calls.
 */
export function routeTable(app: TestApp['app']): Route[] {
  const keys = new Set<string>();
  for (const { method, path } of app.routes) {
    if (method !== 'ALL') keys.add(`${method} ${path}`);
    else if (!GLOBAL_PATHS.has(path)) {
      keys.add(`GET ${path}`);
      if (!path.includes('*')) keys.add(`POST ${path}`);
    }
  }
  return [...keys].sort().map((key) => {
    const [method, path] = key.split(' ') as [string, string];
    return { method, path };
  });
}

/** A segment that is a parameter (`:id`, `:id?`, `:name{regex}`) or a wildcard; its name, or `*`. */
function paramName(segment: string): string | undefined {
  if (segment === '*') return '*';
  return /^:([A-Za-z0-9_]+)/.exec(segment)?.[1];
}

/** The names of a path's parameters in order; a wildcard is named `*`. */
export function pathParams(path: string): string[] {
  return path.split('/').flatMap((segment) => paramName(segment) ?? []);
}

/** The path with every parameter and wildcard replaced by `fill(name)`, which must already be URL-encoded. */
export function fillPath(path: string, fill: (name: string) => string): string {
  return path
    .split('/')
    .map((segment) => {
      const name = paramName(segment);
      return name === undefined ? segment : fill(name);
    })
    .join('/');
}

/** OpenAPI's spelling of a Hono path: `:id` becomes `{id}`. */
export function openApiPath(path: string): string {
  return fillPath(path, (name) => `{${name}}`);
}

type OpenApiResponse = { $ref?: string; content?: Record<string, { schema?: { $ref?: string } }> };

export type OpenApiOperation = {
  requestBody?: unknown;
  parameters?: { in: string; name: string }[];
  responses: Record<string, OpenApiResponse>;
  security?: Record<string, string[]>[];
  tags?: string[];
};

export type OpenApiDocument = {
  paths: Record<string, Record<string, OpenApiOperation>>;
  components?: { responses?: Record<string, OpenApiResponse> };
};

/** The app's /openapi.json, with responses shared through `components.responses` written out in each operation. */
export async function openApiDocument(app: TestApp['app']): Promise<OpenApiDocument> {
  const response = await app.request('/openapi.json');
  if (response.status !== 200) throw new Error(`/openapi.json answered ${response.status}`);
  const doc = (await response.json()) as OpenApiDocument;
  const shared = doc.components?.responses ?? {};
  for (const operations of Object.values(doc.paths)) {
    for (const operation of Object.values(operations)) {
      for (const [status, answer] of Object.entries(operation.responses ?? {})) {
        const name = answer.$ref?.split('/').pop();
        if (name !== undefined) operation.responses[status] = shared[name] ?? answer;
      }
    }
  }
  return doc;
}

/** The documented operation of a route, or undefined for routes the API document leaves out (pages, assets, probes). */
export function operationOf(doc: OpenApiDocument, route: Route): OpenApiOperation | undefined {
  return doc.paths[openApiPath(route.path)]?.[route.method.toLowerCase()];
}

/** The component (`MessageError`, `ContactError`, ...) a documented response's JSON body refers to. */
function componentOf(response: OpenApiResponse | undefined): string | undefined {
  return response?.content?.['application/json']?.schema?.$ref?.split('/').pop();
}

/**
 * The error body a route documents for `status`: the schema given for that status, else the one
 * most of its documented errors use (a 413 or 429 is answered in the route's shape even where the
 * document does not list it).
 */
export function documentedErrorSchema(operation: OpenApiOperation, status: number): string | undefined {
  const exact = componentOf(operation.responses[String(status)]);
  if (exact !== undefined) return exact;
  const tally = new Map<string, number>();
  for (const [code, response] of Object.entries(operation.responses)) {
    const component = componentOf(response);
    if (Number(code) >= 400 && component !== undefined) tally.set(component, (tally.get(component) ?? 0) + 1);
  }
  return [...tally.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
}
