/**
 * Two accounts on one app, a victim and an attacker, each with data of its own, and what it takes
 * to tell whether an answer shows any of the victim's: every identifier, number, address and text
 * of the victim, grouped by the thing it names (a number and its display forms are one thing).
 */
import { makeTestApp, type TestAccount, type TestApp } from '../helpers/app.ts';
import { INGEST_SECRET } from '../helpers/ingest.ts';
import { type Owned, populate } from '../helpers/populated-app.ts';
import { type OpenApiDocument, openApiDocument } from '../helpers/route-table.ts';

/** End users only the victim talks to, and others only the attacker talks to. */
const VICTIM_PEOPLE: [string, string, string] = ['+12124568140', '+12124568141', '+12124568142'];
const ATTACKER_PEOPLE: [string, string, string] = ['+12124569140', '+12124569141', '+12124569142'];

/** One thing of the victim's, in every spelling an answer could show it in. */
export type Secret = { kind: 'id' | 'other'; spellings: string[] };

/** +12124568140, 2124568140, +1 212 456 8140, (212) 456-8140. */
function numberSpellings(e164: string): string[] {
  const national = e164.slice(2);
  return [
    e164,
    national,
    `+1 ${national.slice(0, 3)} ${national.slice(3, 6)} ${national.slice(6)}`,
    `(${national.slice(0, 3)}) ${national.slice(3, 6)}-${national.slice(6)}`,
  ];
}

async function victimSecrets(t: TestApp, account: TestAccount, owned: Owned, webhookSecret: string): Promise<Secret[]> {
  const ids = [...owned.handles, ...owned.groupIds, ...owned.cids, ...owned.deliveryIds, ...owned.transportHandles];
  const texts = [
    account.email,
    account.api_key_id,
    account.api_secret_key,
    (await t.store.accounts.findByKeyId(account.api_key_id))!.id,
    webhookSecret,
    ...owned.urls,
    'Firstvictim',
    'Lastvictim',
    'Companyvictim',
    'hello from victim',
    'group news from victim',
    'reply to victim',
  ];
  return [
    ...ids.map((id): Secret => ({ kind: 'id', spellings: [id] })),
    ...[...owned.people, ...owned.lines].map((number): Secret => ({ kind: 'other', spellings: numberSpellings(number) })),
    ...texts.map((text): Secret => ({ kind: 'other', spellings: [text] })),
  ];
}

export async function makeWorld() {
  const t = makeTestApp({ ingestSecrets: [INGEST_SECRET] });
  const victim = await populate(t, await t.createAccount({ email: 'victim@example.com' }), VICTIM_PEOPLE, 'victim');
  const attacker = await populate(t, await t.createAccount({ email: 'attacker@example.com' }), ATTACKER_PEOPLE, 'attacker');
  const settings = await t.call('GET', '/accounts/webhooks', victim.account);
  const secrets = await victimSecrets(t, victim.account, victim.owned, settings.body.secret);
  const doc: OpenApiDocument = await openApiDocument(t.app);
  return { t, victim, attacker, secrets, doc, said: [] as string[] };
}

export type World = Awaited<ReturnType<typeof makeWorld>>;

/** The victim's things the answer shows, leaving out those the request itself carried (an echo is no leak). */
export function leaksIn(secrets: Secret[], request: string, answer: string): string[] {
  return secrets
    .filter((secret) => !secret.spellings.some((spelling) => request.includes(spelling)))
    .flatMap((secret) => secret.spellings.filter((spelling) => answer.includes(spelling)));
}

/**
 * An id of the same form that names nothing: the last characters turned, so a handle stays a UUID
 * and a prefixed id keeps its prefix.
 */
export function lookalike(id: string): string {
  const turn = (char: string) => {
    const alphabet = /[0-9a-f]/.test(char)
      ? '0123456789abcdef'
      : /[A-Za-z0-9]/.test(char)
        ? 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'
        : '';
    return alphabet === '' ? char : alphabet[(alphabet.indexOf(char) + 7) % alphabet.length]!;
  };
  return id.slice(0, -8) + [...id.slice(-8)].map(turn).join('');
}
