/**
 * The auth matrix, generated from the app's route table so a new route is covered the day it is
 * added. Every route is called without credentials, with wrong ones, and with another account's
 * aimed at the victim's resources; no answer may show anything of the victim's, an id of the
 * victim's must answer exactly as an id that names nothing, and the victim's own view of its data
 * must be the same afterwards. How a route authenticates is read from its OpenAPI operation;
 * routes outside the document are pages with a cookie session unless listed public.
 */
import { describe, expect, it } from 'vitest';
import { authKindOf } from '../fuzz/requests.ts';
import { makeTestApp } from '../helpers/app.ts';
import { parseJson } from '../helpers/http.ts';
import { INGEST_SECRET, signedHeaders } from '../helpers/ingest.ts';
import { type OpenApiOperation, operationOf, type Route, routeKey, routeTable } from '../helpers/route-table.ts';
import { writeCounter } from '../helpers/write-counter.ts';
import {
  type Account,
  type Answer,
  apiHeaders,
  type Call,
  describeExchange,
  expectUnauthorized,
  OWN_ORIGIN,
  send,
  shownBy,
  targetsOf,
  textOf,
  wrongCredentials,
} from './calls.ts';
import { publicReason } from './public-routes.ts';
import { loginPathOf, type Session, signIn } from './session.ts';
import { leaksIn, lookalike, makeWorld, type World } from './world.ts';

const ROUTES = routeTable(makeTestApp().app);
const IDEMPOTENCY_KEY = 'auth-matrix-key';

function accountOf(world: World, who: 'victim' | 'attacker'): Account {
  const { account } = world[who];
  return { keyId: account.api_key_id, secret: account.api_secret_key };
}

/** 501 (error_code 5010): the documented answer of an SDK call textrelay does not offer, whatever it names. */
function notSupported(answer: Answer): boolean {
  return answer.status === 501 && answer.text.includes('"error_code":5010');
}

/**
 * Sends `call` and checks what holds for every answer: no 5xx but a 501 not-supported, nothing of the victim's shown that
 * the caller did not send itself, in this request or an earlier one (a URL the attacker added to
 * its own webhooks comes back in its later answers, and is its own data by then).
 */
async function probe(world: World, call: Call): Promise<Answer> {
  const answer = await send(world, call);
  const where = describeExchange(call, answer);
  world.said.push(textOf(call));
  if (!notSupported(answer)) expect(answer.status, where).toBeLessThan(500);
  expect(leaksIn(world.secrets, world.said.join('\n'), shownBy(answer)), `the victim's data in the answer: ${where}`).toEqual([]);
  return answer;
}

function jsonCall(method: string, url: string, headers: [string, string][], body: Record<string, unknown> | undefined): Call {
  if (method === 'GET' || body === undefined) return { method, url, headers };
  return { method, url, headers: [...headers, ['content-type', 'application/json']], body: JSON.stringify(body) };
}

/** The victim's answers on every GET route that takes its credentials, its ids in the path. */
async function victimView(world: World): Promise<string[]> {
  const view: string[] = [];
  for (const route of ROUTES.filter((each) => each.method === 'GET' && authKindOf(operationOf(world.doc, each)) === 'account')) {
    const { path } = targetsOf(route, world.victim.owned)[0]!;
    const answer = await send(world, { method: 'GET', url: path, headers: apiHeaders(accountOf(world, 'victim')) });
    view.push(`${path} ${answer.status} ${answer.text}`);
  }
  return view;
}

/**
 * The same request with each victim id it carries replaced by a lookalike that names nothing must
 * get the same status and, for refusals and reads, the same body: otherwise the answer tells an
 * attacker which ids exist.
 */
async function expectNoExistenceOracle(world: World, call: Call, answer: Answer): Promise<void> {
  const ids = world.secrets.filter((secret) => secret.kind === 'id').map((secret) => secret.spellings[0]!);
  const carried = ids.filter((id) => textOf(call).includes(id));
  if (carried.length === 0) return;
  const swap = (text: string) => carried.reduce((acc, id) => acc.split(id).join(lookalike(id)), text);
  const twin: Call = { ...call, url: swap(call.url), body: call.body === undefined ? undefined : swap(call.body) };
  const twinAnswer = await probe(world, twin);
  const where = `${describeExchange(call, answer)}\nversus ${describeExchange(twin, twinAnswer)}`;
  expect(twinAnswer.status, where).toBe(answer.status);
  if (answer.status >= 300 || call.method === 'GET') {
    const blank = (text: string, list: string[]) => list.reduce((acc, id) => acc.split(id).join('<id>'), text);
    expect(blank(twinAnswer.text, carried.map(lookalike)), where).toBe(blank(answer.text, carried));
    expect(blank(decodeURIComponent(twinAnswer.headers.get('location') ?? ''), carried.map(lookalike)), where).toBe(
      blank(decodeURIComponent(answer.headers.get('location') ?? ''), carried),
    );
  }
}

async function accountRoute(world: World, route: Route, operation: OpenApiOperation): Promise<void> {
  const targets = targetsOf(route, world.victim.owned);
  const idempotent = (operation.parameters ?? []).some((parameter) => parameter.in === 'header' && parameter.name === 'idempotency-key');
  const keyHeader: [string, string][] = idempotent ? [['idempotency-key', IDEMPOTENCY_KEY]] : [];
  const first = targets[0]!;

  // The right credentials under other spellings open the route (so the refusals below are not vacuous);
  // with an Idempotency-Key, the attacker later reuses the victim's key and body.
  for (const names of [
    ['SVC-API-KEY-ID', 'Svc-Api-Secret-Key'],
    ['sb-api-key-id', 'SB-API-SECRET-KEY'],
  ] as [string, string][]) {
    const call = jsonCall(
      route.method,
      `${first.path}${first.query}`,
      [...apiHeaders(accountOf(world, 'victim'), names), ...keyHeader],
      first.body,
    );
    const answer = await send(world, call);
    expect([401, 403], describeExchange(call, answer)).not.toContain(answer.status);
    const handle = parseJson(answer.text)?.message_handle;
    if (typeof handle === 'string') world.secrets.push({ kind: 'id', spellings: [handle] });
  }

  const before = await victimView(world);
  const writes = writeCounter(world.t);
  for (const wrong of wrongCredentials(accountOf(world, 'victim'), accountOf(world, 'attacker'), await webhookSecretOf(world))) {
    for (const target of targets.slice(0, 2)) {
      const separator = target.query === '' ? '?' : '&';
      const url = `${target.path}${target.query}${wrong.query ? `${separator}${wrong.query}` : ''}`;
      const call = jsonCall(route.method, url, wrong.headers, target.body);
      const count = await writes();
      const answer = await probe(world, call);
      expectUnauthorized(answer, `${wrong.name}: ${describeExchange(call, answer)}`, 'Invalid or missing API credentials');
      expect(await writes(), `${wrong.name} wrote: ${describeExchange(call, answer)}`).toBe(count);
    }
  }

  for (const target of targets) {
    const call = jsonCall(
      route.method,
      `${target.path}${target.query}`,
      [...apiHeaders(accountOf(world, 'attacker')), ...keyHeader],
      target.body,
    );
    const answer = await probe(world, call);
    const where = describeExchange(call, answer);
    // A 403 would say "it exists, but not for you".
    expect([401, 403], where).not.toContain(answer.status);
    if (target.pathNamesVictim && !notSupported(answer))
      expect(answer.status, `the victim's resource must be "not found": ${where}`).toBe(404);
    await expectNoExistenceOracle(world, call, answer);
  }
  expect(await victimView(world), "the victim's data changed").toEqual(before);
}

async function webhookSecretOf(world: World): Promise<string> {
  return world.secrets.find((secret) => secret.spellings[0]!.startsWith('whsec_'))!.spellings[0]!;
}

async function ingestRoute(world: World, route: Route): Promise<void> {
  const target = targetsOf(route, world.victim.owned)[0]!;
  const body = JSON.stringify(target.body);
  const victimWebhookSecret = await webhookSecretOf(world);
  const attempts: { name: string; headers: [string, string][] }[] = [
    { name: 'none', headers: [] },
    { name: 'wrong signing secret', headers: [['svc-signing-secret', `${INGEST_SECRET}x`]] },
    { name: "the victim's API credentials", headers: apiHeaders(accountOf(world, 'victim')) },
    { name: "the victim's API secret as signing secret", headers: [['svc-signing-secret', world.victim.account.api_secret_key]] },
    { name: "the victim's webhook secret as signing secret", headers: [['sb-signing-secret', victimWebhookSecret]] },
    { name: "signed with the victim's webhook secret", headers: Object.entries(signedHeaders(victimWebhookSecret, 'msg_matrix', body)) },
    { name: 'signature of another body', headers: Object.entries(signedHeaders(INGEST_SECRET, 'msg_matrix', `${body} `)) },
  ];
  const before = await victimView(world);
  const writes = writeCounter(world.t);
  const refusals = new Set<string>();
  for (const attempt of attempts) {
    const call: Call = {
      method: route.method,
      url: target.path,
      headers: [...attempt.headers, ['content-type', 'application/json']],
      body,
    };
    const count = await writes();
    const answer = await probe(world, call);
    const where = `${attempt.name}: ${describeExchange(call, answer)}`;
    expect(answer.status, where).toBe(401);
    expect(JSON.parse(answer.text), where).toMatchObject({ status: 'ERROR', error_code: 4010 });
    expect(await writes(), `wrote: ${where}`).toBe(count);
    refusals.add(answer.text);
  }
  expect([...refusals], 'every refusal must read the same, so none hints at which part was wrong').toHaveLength(1);
  expect(await victimView(world), "the victim's data changed").toEqual(before);
}

async function publicRoute(world: World, route: Route): Promise<void> {
  for (const target of targetsOf(route, world.victim.owned).slice(0, 3)) {
    for (const headers of [[], apiHeaders(accountOf(world, 'attacker'))] as [string, string][][]) {
      await probe(world, jsonCall(route.method, `${target.path}${target.query}`, [...headers, ['origin', OWN_ORIGIN]], target.body));
    }
  }
}

/** Routes outside the API document and not public: pages behind the cookie session. */
function pagesOf(world: World): Route[] {
  return ROUTES.filter((route) => !operationOf(world.doc, route) && publicReason(route) === undefined);
}

function sessionCall(route: Route, target: ReturnType<typeof targetsOf>[number], headers: [string, string][], origin = OWN_ORIGIN): Call {
  const url = `${target.path}${target.query}`;
  if (route.method === 'GET') return { method: 'GET', url, headers };
  const form = new URLSearchParams(Object.entries(target.body ?? {}).map(([key, value]) => [key, String(value)])).toString();
  return {
    method: route.method,
    url,
    headers: [...headers, ['origin', origin], ['content-type', 'application/x-www-form-urlencoded']],
    body: form,
  };
}

/** Refused: sent to a page of this origin (the login form), 401, 403 or 404; never the page itself. */
function expectRefusedPage(call: Call, answer: Answer, where: string): void {
  expect([301, 302, 303, 307, 308, 401, 403, 404], `${where}: ${describeExchange(call, answer)}`).toContain(answer.status);
  const location = answer.headers.get('location');
  if (location) expect(new URL(location, OWN_ORIGIN).origin, describeExchange(call, answer)).toBe(OWN_ORIGIN);
}

async function sessionRoute(world: World, route: Route): Promise<void> {
  const targets = targetsOf(route, world.victim.owned).slice(0, 3);
  const loginPath = await loginPathOf(world, pagesOf(world));
  expect(
    loginPath,
    `${routeKey(route)} is neither in the API document nor public, so it needs a session, but no page sends strangers to a login form`,
  ).toBeDefined();
  const victimSession: Session = await signIn(world, loginPath!, accountOf(world, 'victim'));
  const attackerSession: Session = await signIn(world, loginPath!, accountOf(world, 'attacker'));
  const cookieName = victimSession.cookie.split('=')[0]!;

  const before = await victimView(world);
  const writes = writeCounter(world.t);
  const strangers: { name: string; headers: [string, string][] }[] = [
    { name: 'no session', headers: [] },
    { name: "the victim's API credentials instead of a session", headers: apiHeaders(accountOf(world, 'victim')) },
    { name: 'a forged session cookie', headers: [['cookie', `${cookieName}=forged`]] },
    { name: 'a session cookie under another name', headers: [['cookie', `x${victimSession.cookie}`]] },
  ];
  for (const stranger of strangers) {
    for (const target of targets) {
      const call = sessionCall(route, target, stranger.headers);
      const count = await writes();
      const answer = await probe(world, call);
      expectRefusedPage(call, answer, `${stranger.name} (without a session a page must send to the login form or refuse, never show data)`);
      expect(await writes(), `${stranger.name} wrote: ${describeExchange(call, answer)}`).toBe(count);
    }
  }
  if (route.method === 'POST') {
    // Cross-site request forgery: the victim's browser carries its cookie, the form comes from elsewhere.
    for (const target of targets) {
      const call = sessionCall(route, target, [['cookie', victimSession.cookie]], 'https://evil.example');
      const count = await writes();
      const answer = await probe(world, call);
      expect(answer.status, `a cross-site post must be refused: ${describeExchange(call, answer)}`).toBeGreaterThanOrEqual(400);
      expect(await writes(), `a cross-site post wrote: ${describeExchange(call, answer)}`).toBe(count);
    }
  }
  for (const target of targets) {
    const call = sessionCall(route, target, [['cookie', attackerSession.cookie]]);
    const answer = await probe(world, call);
    if (target.pathNamesVictim)
      expect(answer.status, `the victim's page shown to another account: ${describeExchange(call, answer)}`).not.toBe(200);
    await expectNoExistenceOracle(world, call, answer);
  }
  expect(await victimView(world), "the victim's data changed").toEqual(before);
}

describe('auth matrix: every route of the route table', () => {
  for (const route of ROUTES) {
    it(`${routeKey(route)}`, async () => {
      const world = await makeWorld();
      const operation = operationOf(world.doc, route);
      const kind = authKindOf(operation);
      if (kind === 'account') await accountRoute(world, route, operation!);
      else if (kind === 'ingest') await ingestRoute(world, route);
      else if (publicReason(route) !== undefined) await publicRoute(world, route);
      else await sessionRoute(world, route);
    });
  }
});
