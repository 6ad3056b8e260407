/**
 * Generated requests: the route's path with its parameters filled, a query string, headers
 * (credentials included) and a body, mixing fully random input with valid input spoiled in one place.
 */
import fc from 'fast-check';
import { INGEST_SECRET } from '../helpers/ingest.ts';
import type { Owned } from '../helpers/populated-app.ts';
import { fillPath, type OpenApiOperation, pathParams, type Route } from '../helpers/route-table.ts';
import type { InputSpec, RouteInputs } from './inputs.ts';
import { headerValue, hugeString, oddText, queryValue, segment, spoiled, wrongType } from './values.ts';

export type FuzzRequest = {
  method: string;
  url: string;
  headers: [string, string][];
  body: string | FormData | undefined;
  /** Sign the body as a Standard Webhooks sender would (ingest routes); done once the body is final. */
  sign: boolean;
};

export type Credentials = {
  main: { keyId: string; secret: string };
  other: { keyId: string; secret: string };
  /** The main account's page session (a Cookie header value), when the app has pages to sign in to. */
  session?: string | undefined;
};

/** How a route authenticates its callers, as its OpenAPI operation declares. */
export type AuthKind = 'account' | 'ingest' | 'unknown';

export function authKindOf(operation: OpenApiOperation | undefined): AuthKind {
  const schemes = (operation?.security ?? []).flatMap((requirement) => Object.keys(requirement));
  if (schemes.includes('apiKeyId')) return 'account';
  if (schemes.includes('signingSecret')) return 'ingest';
  return 'unknown';
}

const DELETE = Symbol('delete');

/** Every way one field of a valid input goes wrong; `DELETE` removes it. */
function mutationOf(spec: InputSpec, value: unknown): fc.Arbitrary<unknown> {
  const otherFieldValues = Object.values(spec.fields);
  return fc.oneof(
    { weight: 2, arbitrary: fc.constant(DELETE) },
    { weight: 3, arbitrary: wrongType },
    { weight: 3, arbitrary: oddText },
    { weight: 1, arbitrary: hugeString },
    { weight: 3, arbitrary: typeof value === 'string' ? spoiled(value) : fc.constant(String(value)) },
    { weight: 2, arbitrary: fc.oneof(...otherFieldValues) },
    { weight: 1, arbitrary: fc.constant([value]) },
  );
}

function withChange(input: Record<string, unknown>, field: string, value: unknown): Record<string, unknown> {
  const changed = { ...input };
  if (value === DELETE) delete changed[field];
  else changed[field] = value;
  return changed;
}

/** A valid input with one field spoiled, deleted, or of the wrong type. */
function oneFieldWrong(spec: InputSpec): fc.Arbitrary<Record<string, unknown>> {
  const names = Object.keys(spec.fields);
  return spec.valid.chain((input) =>
    fc.constantFrom(...names).chain((field) => mutationOf(spec, input[field]).map((value) => withChange(input, field, value))),
  );
}

/** Records of the route's field names (and a few others) with any mix of valid and hostile values. */
function fieldSoup(spec: InputSpec | undefined): fc.Arbitrary<Record<string, unknown>> {
  const names = Object.keys(spec?.fields ?? {});
  const key = fc.oneof(
    ...(names.length > 0 ? [fc.constantFrom(...names)] : []),
    fc.constantFrom('__proto__', 'constructor', 'id', 'account_id', 'handle', 'limit', ''),
    fc.string({ maxLength: 8 }),
  );
  const values = spec ? Object.values(spec.fields) : [];
  return fc.dictionary(key, fc.oneof(...values, wrongType, oddText), { maxKeys: names.length + 3 });
}

/** Valid inputs, one-field-wrong inputs and soups, weighted towards the near-valid. */
function inputs(spec: InputSpec | undefined): fc.Arbitrary<Record<string, unknown>> {
  if (!spec) return fieldSoup(undefined);
  return fc.oneof(
    { weight: 3, arbitrary: spec.valid },
    { weight: 5, arbitrary: oneFieldWrong(spec) },
    { weight: 2, arbitrary: fieldSoup(spec) },
  );
}

/** Node's HTTP parser refuses request lines beyond 16 KiB, so longer query values never reach the app in production. */
const MAX_QUERY_VALUE = 4_000;

function queryText(value: unknown): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
  return encodeURIComponent(text.slice(0, MAX_QUERY_VALUE).replace(/[\ud800-\udfff]/g, '?'));
}

/** A query string: pairs from the route's fields (arrays repeat the key), raw encoded junk, repeated keys. */
function queryOf(spec: InputSpec | undefined): fc.Arbitrary<string> {
  const pairs = inputs(spec).map((input) =>
    Object.entries(input).flatMap(([key, value]) =>
      (Array.isArray(value) ? value : [value]).map((item) => `${encodeURIComponent(key)}=${queryText(item)}`),
    ),
  );
  const raw = fc.array(fc.tuple(fc.oneof(fc.constantFrom(...Object.keys(spec?.fields ?? { q: 0 })), queryValue), queryValue), {
    maxLength: 4,
  });
  return fc
    .tuple(
      pairs,
      raw.map((entries) => entries.map(([key, value]) => `${key}=${value}`)),
      fc.constantFrom('', '&', '&&', '#frag'),
    )
    .map(([valid, junk, tail]) => {
      const all = [...valid, ...junk];
      return all.length === 0 ? '' : `?${all.join('&')}${tail}`;
    });
}

/** The route's path with each parameter a valid value, an id the account owns, or a hostile segment. */
function pathOf(route: Route, params: RouteInputs['params'], owned: Owned): fc.Arbitrary<string> {
  const anyOwned = fc.constantFrom(...owned.handles, ...owned.groupIds, ...owned.cids, ...owned.deliveryIds).map(encodeURIComponent);
  const values = pathParams(route.path).map((name) =>
    fc.oneof({ weight: 3, arbitrary: params?.[name]?.map(encodeURIComponent) ?? anyOwned }, { weight: 2, arbitrary: segment }),
  );
  return fc.tuple(...values).map((filled) => {
    let index = 0;
    return fillPath(route.path, () => filled[index++]!);
  });
}

const JSON_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'Application/JSON',
  'application/vnd.api+json',
  'application/json; charset=latin1',
];
const OTHER_TYPES = ['text/plain', 'application/jsonx', 'application/xml', 'application/octet-stream', '*/*', ''];

function formOf(input: Record<string, unknown>): [string, string][] {
  return Object.entries(input).flatMap(([key, value]) =>
    (Array.isArray(value) ? value : [value]).map((item): [string, string] => [
      key,
      typeof item === 'string' ? item : (JSON.stringify(item) ?? ''),
    ]),
  );
}

/** The body and the content-type headers that go with it (none for multipart: the request sets its boundary). */
function bodyOf(spec: InputSpec | undefined): fc.Arbitrary<{ body: string | FormData | undefined; headers: [string, string][] }> {
  const payload = fc.oneof({ weight: 8, arbitrary: inputs(spec) as fc.Arbitrary<unknown> }, { weight: 1, arbitrary: fc.jsonValue() });
  const asJson = fc
    .tuple(payload, fc.constantFrom(...JSON_TYPES))
    .map(([value, type]) => ({ body: JSON.stringify(value), headers: [['content-type', type]] as [string, string][] }));
  const asForm = inputs(spec).map((input) => ({
    body: new URLSearchParams(formOf(input)).toString(),
    headers: [['content-type', 'application/x-www-form-urlencoded']] as [string, string][],
  }));
  const asMultipart = inputs(spec).map((input) => {
    const form = new FormData();
    for (const [key, value] of formOf(input)) form.append(key, value);
    return { body: form, headers: [] as [string, string][] };
  });
  const broken = fc
    .tuple(
      fc.oneof(
        inputs(spec).map((input) => JSON.stringify(input).slice(0, -1)),
        inputs(spec).map((input) => `\ufeff${JSON.stringify(input)}`),
        fc.string({ unit: 'binary', maxLength: 60 }),
        fc.constantFrom('', ' ', 'null', '[]', '{"a":1}}', '{"a":1,"a":2}', '['.repeat(5_000)),
      ),
      fc.constantFrom(...JSON_TYPES, ...OTHER_TYPES),
    )
    .map(([body, type]) => ({ body, headers: [['content-type', type]] as [string, string][] }));
  const mistyped = fc
    .tuple(payload, fc.constantFrom(...OTHER_TYPES))
    .map(([value, type]) => ({ body: JSON.stringify(value), headers: [['content-type', type]] as [string, string][] }));
  const twoTypes = payload.map((value) => ({
    body: JSON.stringify(value),
    headers: [
      ['content-type', 'application/json'],
      ['content-type', 'text/plain'],
    ] as [string, string][],
  }));
  return fc.oneof(
    { weight: 10, arbitrary: asJson },
    { weight: 2, arbitrary: asForm },
    { weight: 1, arbitrary: asMultipart },
    { weight: 2, arbitrary: broken },
    { weight: 1, arbitrary: mistyped },
    { weight: 1, arbitrary: twoTypes },
    { weight: 1, arbitrary: fc.constant({ body: undefined, headers: [] as [string, string][] }) },
  );
}

const KEY_NAMES = ['svc-api-key-id', 'SVC-API-KEY-ID', 'Svc-Api-Key-Id', 'sb-api-key-id', 'SB-Api-Key-ID'];
const SECRET_NAMES = ['svc-api-secret-key', 'SVC-API-SECRET-KEY', 'Svc-Api-Secret-Key', 'sb-api-secret-key', 'Sb-API-Secret-KEY'];

function accountHeaders(credentials: Credentials): fc.Arbitrary<[string, string][]> {
  const pair = (keyId: string, secret: string) =>
    fc.tuple(fc.constantFrom(...KEY_NAMES), fc.constantFrom(...SECRET_NAMES)).map(([keyName, secretName]): [string, string][] => [
      [keyName, keyId],
      [secretName, secret],
    ]);
  const { main, other } = credentials;
  return fc.oneof(
    { weight: 12, arbitrary: pair(main.keyId, main.secret) },
    { weight: 2, arbitrary: pair(other.keyId, other.secret) },
    { weight: 1, arbitrary: pair(main.keyId, other.secret) },
    { weight: 1, arbitrary: fc.tuple(headerValue, headerValue).chain(([keyId, secret]) => pair(keyId, secret)) },
    {
      weight: 1,
      arbitrary: fc.constantFrom<[string, string][]>([], [['svc-api-key-id', main.keyId]], [['svc-api-secret-key', main.secret]]),
    },
    {
      weight: 1,
      // The same header twice: Headers joins the values with ", ", which must match no account.
      arbitrary: fc.constant<[string, string][]>([
        ['svc-api-key-id', main.keyId],
        ['svc-api-key-id', other.keyId],
        ['svc-api-secret-key', main.secret],
      ]),
    },
  );
}

function ingestHeaders(credentials: Credentials): fc.Arbitrary<{ headers: [string, string][]; sign: boolean }> {
  const plain = (headers: [string, string][]) => ({ headers, sign: false });
  return fc.oneof(
    {
      weight: 8,
      arbitrary: fc
        .constantFrom('svc-signing-secret', 'SB-SIGNING-SECRET', 'Svc-Signing-Secret')
        .map((name) => plain([[name, INGEST_SECRET]])),
    },
    { weight: 3, arbitrary: fc.constant({ headers: [] as [string, string][], sign: true }) },
    { weight: 1, arbitrary: headerValue.map((value) => plain([['svc-signing-secret', value]])) },
    { weight: 1, arbitrary: fc.constant(plain([])) },
    { weight: 1, arbitrary: accountHeaders(credentials).map(plain) },
  );
}

function credentialsFor(kind: AuthKind, credentials: Credentials): fc.Arbitrary<{ headers: [string, string][]; sign: boolean }> {
  if (kind === 'ingest') return ingestHeaders(credentials);
  const account = accountHeaders(credentials).map((headers) => ({ headers, sign: false }));
  if (kind === 'account') return account;
  const stranger = fc.constant({ headers: [] as [string, string][], sign: false });
  if (credentials.session === undefined) return fc.oneof(account, stranger);
  // Signed in, from a page of this origin (form posts from elsewhere are refused before anything else).
  const signedIn = fc.constant({
    headers: [
      ['cookie', credentials.session],
      ['origin', 'http://localhost'],
    ] as [string, string][],
    sign: false,
  });
  return fc.oneof({ weight: 1, arbitrary: account }, { weight: 1, arbitrary: stranger }, { weight: 4, arbitrary: signedIn });
}

const JUNK_HEADER_NAMES = [
  'accept',
  'x-forwarded-for',
  'x-request-id',
  'cookie',
  'authorization',
  'origin',
  'if-none-match',
  'accept-encoding',
];

/** Headers the route documents (Idempotency-Key, webhook-id) with good and bad values, plus unrelated ones. */
function extraHeaders(operation: OpenApiOperation | undefined): fc.Arbitrary<[string, string][]> {
  const documented = (operation?.parameters ?? []).filter((parameter) => parameter.in === 'header').map((parameter) => parameter.name);
  const value = fc.oneof(fc.stringMatching(/^[A-Za-z0-9_-]{1,40}$/), headerValue, fc.constant('k'.repeat(300)));
  const own = documented.map((name) =>
    fc.option(value, { nil: undefined }).map((text) => (text === undefined ? [] : [[name, text] as [string, string]])),
  );
  const junk = fc.array(fc.tuple(fc.oneof(fc.constantFrom(...JUNK_HEADER_NAMES), fc.stringMatching(/^x-[a-z0-9-]{1,12}$/)), headerValue), {
    maxLength: 2,
  });
  return fc.tuple(fc.tuple(...own), junk).map(([ownHeaders, junkHeaders]) => [...ownHeaders.flat(), ...junkHeaders]);
}

export type RequestContext = {
  route: Route;
  operation: OpenApiOperation | undefined;
  inputs: RouteInputs;
  owned: Owned;
  credentials: Credentials;
};

export function requestsFor({ route, operation, inputs: spec, owned, credentials }: RequestContext): fc.Arbitrary<FuzzRequest> {
  const hasBody = route.method !== 'GET' && route.method !== 'HEAD';
  const noBody = fc.constant({ body: undefined, headers: [] as [string, string][] });
  return fc
    .record({
      path: pathOf(route, spec.params, owned),
      query: queryOf(spec.query),
      body: hasBody ? bodyOf(spec.body) : noBody,
      auth: credentialsFor(authKindOf(operation), credentials),
      extra: extraHeaders(operation),
    })
    .map(({ path, query, body, auth, extra }) => ({
      method: route.method,
      url: `${path}${query}`,
      headers: [...auth.headers, ...body.headers, ...extra],
      body: body.body,
      sign: auth.sign,
    }));
}
