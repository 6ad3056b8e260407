/**
 * Fuzzes every route of the app's route table, a share of them per test file so vitest's workers
 * run the files in parallel. Each generated request must get an answer below 500; an error answer
 * must be the body the route documents, and must have written nothing.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { makeTestApp } from '../helpers/app.ts';
import { expectDocumentedError } from '../helpers/documented-errors.ts';
import { INGEST_SECRET, signedHeaders } from '../helpers/ingest.ts';
import { makePopulatedApp } from '../helpers/populated-app.ts';
import { openApiDocument, operationOf, type Route, routeKey, routeTable } from '../helpers/route-table.ts';
import { writeCounter } from '../helpers/write-counter.ts';
import { loginPathOf, signIn } from '../security/session.ts';
import { ROUTE_INPUTS } from './inputs.ts';
import { type FuzzRequest, requestsFor } from './requests.ts';

/** Cases per route: 300 in the suite; FUZZ_RUNS raises it for a longer hunt. */
const RUNS = Number(process.env.FUZZ_RUNS ?? 300);

export type FuzzShare = 'sends' | 'reads' | 'accounts' | 'ingest' | 'pages' | 'other';

/** Which file fuzzes a route; a route no rule names (docs, metrics, probes, whatever comes next) lands in "other". */
export function shareOf(route: Route): FuzzShare {
  if (route.path.startsWith('/webhooks/')) return 'ingest';
  if (route.method === 'POST' && (route.path.startsWith('/api/') || route.path.startsWith('/sandbox/'))) return 'sends';
  if (route.method === 'GET' && /^\/(api\/status|accounts\/(messages|contacts))/.test(route.path)) return 'reads';
  if (route.path.startsWith('/accounts/')) return 'accounts';
  if (route.path === '/inbox' || route.path.startsWith('/inbox/')) return 'pages';
  return 'other';
}

function describeRequest(request: FuzzRequest): string {
  const body = request.body instanceof FormData ? `<form ${[...request.body.keys()].join(',')}>` : request.body;
  const clip = (text: string) => (text.length > 300 ? `${text.slice(0, 300)}...<${text.length} chars>` : text);
  return `${request.method} ${clip(request.url)} headers=${clip(JSON.stringify(request.headers))} body=${clip(JSON.stringify(body) ?? 'none')}`;
}

function toInit(request: FuzzRequest): RequestInit {
  const headers = new Headers();
  for (const [name, value] of request.headers) headers.append(name, value);
  if (request.sign && typeof request.body === 'string') {
    for (const [name, value] of Object.entries(signedHeaders(INGEST_SECRET, `msg_fuzz_${fc.hash(request.body)}`, request.body)))
      headers.set(name, value);
  }
  return { method: request.method, headers, body: request.body };
}

async function fuzzRoute(route: Route, seed: number): Promise<void> {
  const { t, owned, account } = await makePopulatedApp();
  const other = await t.createAccount({ plan: 'blue' });
  const doc = await openApiDocument(t.app);
  const operation = operationOf(doc, route);
  const pages = routeTable(t.app).filter((each) => !operationOf(doc, each));
  const loginPath = operation ? undefined : await loginPathOf({ t }, pages);
  const session = loginPath && (await signIn({ t }, loginPath, { keyId: account.api_key_id, secret: account.api_secret_key })).cookie;
  const writes = writeCounter(t);
  const outcomes = { accepted: 0, rejected: 0 };
  const requests = requestsFor({
    route,
    operation,
    inputs: ROUTE_INPUTS[routeKey(route)]?.(owned) ?? {},
    owned,
    credentials: {
      main: { keyId: account.api_key_id, secret: account.api_secret_key },
      other: { keyId: other.api_key_id, secret: other.api_secret_key },
      session,
    },
  }).map((request) => Object.assign(request, { [fc.toStringMethod]: () => describeRequest(request) }));

  // The SDK's calls textrelay does not offer answer 501 to everything: no rules behind it to reach.
  const notSupported = operation?.tags?.includes('Not supported') ?? false;
  const property = fc.asyncProperty(requests, async (request) => {
    const before = await writes();
    const response = await t.app.request(request.url, toInit(request));
    // An event stream never ends: its status is what there is to check.
    const streaming = response.headers.get('content-type')?.includes('text/event-stream');
    if (streaming) await response.body?.cancel();
    const text = streaming ? '' : await response.text();
    const where = `${describeRequest(request)} -> ${response.status} ${text.slice(0, 500)}`;
    if (!(notSupported && response.status === 501)) expect(response.status, where).toBeLessThan(500);
    if (response.status < 400) {
      outcomes.accepted += 1;
      return;
    }
    outcomes.rejected += 1;
    expect(await writes(), `a rejected request wrote: ${where}`).toBe(before);
    if (operation) expectDocumentedError(operation, response.status, response.headers.get('content-type'), text, where);
  });
  try {
    await fc.assert(property, { numRuns: RUNS, seed });
  } catch (error) {
    throw new Error(`${routeKey(route)} failed; replay with FUZZ_SEED=${seed}\n${(error as Error).message}`, { cause: error });
  }
  if (operation && !notSupported) {
    // Generators that only ever reach one outcome would prove little about the other; a route
    // with neither credentials nor inputs (the health checks) has nothing to refuse.
    const refusable =
      (operation.security ?? []).length > 0 || operation.requestBody !== undefined || (operation.parameters ?? []).length > 0;
    expect(outcomes.accepted, `${routeKey(route)} ${JSON.stringify(outcomes)}`).toBeGreaterThan(0);
    if (refusable) expect(outcomes.rejected, `${routeKey(route)} ${JSON.stringify(outcomes)}`).toBeGreaterThan(0);
  }
}

/** Declares one test per route of `share`; the seed is random unless FUZZ_SEED fixes it, and printed on failure. */
export function fuzzShare(share: FuzzShare): void {
  const routes = routeTable(makeTestApp().app).filter((route) => shareOf(route) === share);
  const seed = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
  describe(`fuzz (${share})`, () => {
    it('has routes to fuzz', () => {
      expect(routes.length).toBeGreaterThan(0);
    });
    for (const route of routes) {
      it(
        `${routeKey(route)}: ${RUNS} generated requests, no 5xx, documented errors, nothing written on rejection`,
        () => fuzzRoute(route, seed),
        120_000,
      );
    }
  });
}
