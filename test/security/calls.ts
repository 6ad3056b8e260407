/**
 * The auth matrix's requests: what it sends, what came back, the credential variants it tries,
 * and the requests an attacker aims at the victim's resources through a route.
 */
import fc from 'fast-check';
import { expect } from 'vitest';
import { ROUTE_INPUTS } from '../fuzz/inputs.ts';
import type { TestApp } from '../helpers/app.ts';
import type { Owned } from '../helpers/populated-app.ts';
import { fillPath, pathParams, type Route, routeKey } from '../helpers/route-table.ts';

export type Call = { method: string; url: string; headers: [string, string][]; body?: string };
export type Answer = { status: number; headers: Headers; text: string };

/** The origin app.request gives requests, which the inbox's same-origin check compares Origin with. */
export const OWN_ORIGIN = 'http://localhost';

export async function send(world: { t: Pick<TestApp, 'app'> }, call: Call): Promise<Answer> {
  const headers = new Headers();
  for (const [name, value] of call.headers) headers.append(name, value);
  const response = await world.t.app.request(call.url, { method: call.method, headers, body: call.body });
  // An event stream never ends; its status and headers are what there is to check.
  if (response.headers.get('content-type')?.includes('text/event-stream')) {
    await response.body?.cancel();
    return { status: response.status, headers: response.headers, text: '' };
  }
  return { status: response.status, headers: response.headers, text: await response.text() };
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

/** Everything a request carries, decoded, for telling an echo from a leak. */
export function textOf(call: Call): string {
  return [call.url, decoded(call.url), ...call.headers.map(([, value]) => value), call.body ?? '', decoded(call.body ?? '')].join('\n');
}

/** Everything an answer shows: its body and every header (a Location can carry a message). */
export function shownBy(answer: Answer): string {
  return [answer.text, ...[...answer.headers.entries()].flatMap(([name, value]) => [`${name}: ${value}`, decoded(value)])].join('\n');
}

export function describeExchange(call: Call, answer: Answer): string {
  return `${call.method} ${call.url.slice(0, 300)} ${JSON.stringify(call.headers).slice(0, 300)} ${(call.body ?? '').slice(0, 300)} -> ${answer.status} ${answer.text.slice(0, 500)}`;
}

export type Account = { keyId: string; secret: string };

export function apiHeaders(account: Account, names: [string, string] = ['svc-api-key-id', 'svc-api-secret-key']): [string, string][] {
  return [
    [names[0], account.keyId],
    [names[1], account.secret],
  ];
}

/** Credentials that must open nothing, each named for the assertion message. */
export function wrongCredentials(
  victim: Account,
  attacker: Account,
  webhookSecret: string,
): { name: string; headers: [string, string][]; query?: string }[] {
  return [
    { name: 'none', headers: [] },
    { name: 'unknown key id', headers: apiHeaders({ keyId: 'key_000000000000000000000000', secret: victim.secret }) },
    { name: 'right key id, wrong secret', headers: apiHeaders({ keyId: victim.keyId, secret: `${victim.secret}x` }) },
    { name: "right key id, another account's secret", headers: apiHeaders({ keyId: victim.keyId, secret: attacker.secret }) },
    { name: "another account's key id, right secret", headers: apiHeaders({ keyId: attacker.keyId, secret: victim.secret }) },
    { name: 'the webhook signing secret as the API secret', headers: apiHeaders({ keyId: victim.keyId, secret: webhookSecret }) },
    { name: 'key id only', headers: [['svc-api-key-id', victim.keyId]] },
    { name: 'secret only', headers: [['svc-api-secret-key', victim.secret]] },
    { name: 'empty values', headers: apiHeaders({ keyId: '', secret: '' }) },
    {
      name: 'upper-case names, wrong secret',
      headers: apiHeaders({ keyId: victim.keyId, secret: 'sk_wrong' }, ['SVC-API-KEY-ID', 'SVC-API-SECRET-KEY']),
    },
    {
      name: 'sb- names, wrong secret',
      headers: apiHeaders({ keyId: victim.keyId, secret: 'sk_wrong' }, ['Sb-Api-Key-Id', 'Sb-Api-Secret-Key']),
    },
    {
      name: 'key id header twice',
      headers: [
        ['svc-api-key-id', victim.keyId],
        ['svc-api-key-id', attacker.keyId],
        ['svc-api-secret-key', victim.secret],
      ],
    },
    {
      name: 'mixed spellings, one from each account',
      headers: [
        ['svc-api-key-id', victim.keyId],
        ['sb-api-secret-key', attacker.secret],
      ],
    },
    { name: 'bearer token', headers: [['authorization', `Bearer ${victim.secret}`]] },
    { name: 'basic auth', headers: [['authorization', `Basic ${Buffer.from(`${victim.keyId}:${victim.secret}`).toString('base64')}`]] },
    // Credentials in a URL end up in logs and browser history: they must never work.
    {
      name: 'credentials in the query string',
      headers: [],
      query: `svc-api-key-id=${victim.keyId}&svc-api-secret-key=${encodeURIComponent(victim.secret)}`,
    },
  ];
}

/** The victim's ids of every kind, for path parameters no input table names. */
function anyIds(owned: Owned): string[] {
  return [owned.handles[0]!, owned.groupIds[0]!, owned.cids[0]!, owned.deliveryIds[0]!];
}

/** A body naming the victim's things under every field name the API uses for them. */
function everyIdBody(owned: Owned): Record<string, unknown> {
  return {
    handle: owned.handles[0],
    message_handle: owned.handles[0],
    group_id: owned.groupIds[0],
    cid: owned.cids[0],
    contact_id: owned.cids[0],
    id: owned.deliveryIds[0],
    number: owned.people[0],
    content: 'probe',
    modify_type: 'add_recipient',
    webhooks: [owned.urls[1]],
    type: 'receive',
  };
}

const SAMPLES = 6;

function sampled<T>(arbitrary: fc.Arbitrary<T> | undefined, count: number): (T | undefined)[] {
  return arbitrary ? fc.sample(arbitrary, { numRuns: count, seed: 42 }) : Array.from({ length: count }, () => undefined);
}

function queryString(input: Record<string, unknown> | undefined): string {
  if (!input) return '';
  const pairs = Object.entries(input).map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(String(value))}`);
  return pairs.length === 0 ? '' : `?${pairs.join('&')}`;
}

/**
 * Requests through `route` at the victim's resources: path parameters are the victim's ids, query
 * and body valid inputs built from the victim's data (the fuzzers' input table), and a catch-all
 * query and body naming every kind of victim id, for routes the table does not know.
 */
export function targetsOf(
  route: Route,
  owned: Owned,
): { path: string; query: string; body?: Record<string, unknown>; pathNamesVictim: boolean }[] {
  const inputs = ROUTE_INPUTS[routeKey(route)]?.(owned) ?? {};
  const names = pathParams(route.path);
  const ids = anyIds(owned);
  const paths = Array.from({ length: SAMPLES + 1 }, (_, i) =>
    fillPath(route.path, (name) =>
      encodeURIComponent(inputs.params?.[name] ? fc.sample(inputs.params[name]!, { numRuns: 1, seed: i })[0]! : ids[i % ids.length]!),
    ),
  );
  const queries = sampled(inputs.query?.valid, SAMPLES);
  const bodies = sampled(inputs.body?.valid, SAMPLES);
  const everyId = everyIdBody(owned);
  const targets = queries.map((query, i) => ({
    path: paths[i]!,
    query: queryString(query),
    body: bodies[i] ?? everyId,
    pathNamesVictim: names.length > 0,
  }));
  targets.push({ path: paths[SAMPLES]!, query: queryString(everyId), body: everyId, pathNamesVictim: names.length > 0 });
  return targets;
}

export function expectUnauthorized(answer: Answer, where: string, message: string): void {
  expect(answer.status, where).toBe(401);
  expect(JSON.parse(answer.text), where).toEqual({
    status: 'ERROR',
    error_code: 4010,
    error_message: message,
    message,
    error_detail: null,
  });
}
