/**
 * A test app with an account that owns one of everything the API can point at: a message with a
 * status callback, a group, a contact, receive webhooks, an inbound message, webhook deliveries,
 * and a message the transport knows by a handle of its own. The generated tests (fuzzing, the auth
 * matrix) aim their requests at these ids so they reach past the "not found" answers.
 */
import { expect } from 'vitest';
import { recordHandover } from '../../src/services/handover.ts';
import { makeTestApp, type TestAccount, type TestApp } from './app.ts';
import { show } from './fixtures.ts';
import { INGEST_SECRET } from './ingest.ts';

export type Owned = {
  handles: string[];
  groupIds: string[];
  cids: string[];
  deliveryIds: string[];
  /** End users the account talks to. */
  people: string[];
  /** The account's own lines. */
  lines: string[];
  /** Receive webhook and status callback URLs. */
  urls: string[];
  /** The handle the transport reported for the first message (what /webhooks/* callers refer to). */
  transportHandles: string[];
};

export type Populated = { account: TestAccount; owned: Owned };

/** The transport handle of an account's first message: unique per account so ingest calls can target one. */
function transportHandleOf(account: TestAccount): string {
  return `up-${account.api_key_id}`;
}

async function ok(t: TestApp, method: string, path: string, account: TestAccount, body?: unknown) {
  const reply = await t.call(method, path, account, body);
  expect(reply.status, `${method} ${path} -> ${show(reply.body)}`).toBeLessThan(300);
  return reply.body;
}

/**
 * Gives `account` data of its own. `people` are end users only this account talks to, so that
 * finding one of them in another account's answer is a leak, not a coincidence.
 */
export async function populate(t: TestApp, account: TestAccount, people: [string, string, string], tag: string): Promise<Populated> {
  const [first, second, third] = people;
  const callback = `https://${tag}.example.com/status`;
  const receive = `https://${tag}.example.com/receive`;
  await ok(t, 'POST', '/accounts/webhooks', account, { webhooks: [receive], type: 'receive' });
  const sent = await ok(t, 'POST', '/api/send-message', account, {
    number: first,
    content: `hello from ${tag}`,
    status_callback: callback,
  });
  const group = await ok(t, 'POST', '/api/send-group-message', account, {
    numbers: [first, second],
    content: `group news from ${tag}`,
    status_callback: callback,
  });
  const contact = await ok(t, 'POST', '/accounts/contacts', account, {
    firstName: `First${tag}`,
    lastName: `Last${tag}`,
    number: third,
    companyName: `Company${tag}`,
  });
  const inbound = await ok(t, 'POST', '/sandbox/inbound', account, { number: second, content: `reply to ${tag}` });
  await recordHandover(t.deps, sent.message_handle, { transportHandle: transportHandleOf(account) });
  const deliveries = await ok(t, 'GET', '/accounts/webhooks/deliveries', account);
  expect(deliveries.deliveries.length, show(deliveries)).toBeGreaterThan(0);
  return {
    account,
    owned: {
      handles: [sent.message_handle, group.message_handle, inbound.message_handle],
      groupIds: [group.group_id],
      cids: [contact.contact],
      deliveryIds: deliveries.deliveries.map((delivery: { id: string }) => delivery.id),
      people: [...people],
      lines: account.numbers,
      urls: [callback, receive],
      transportHandles: [transportHandleOf(account)],
    },
  };
}

/** Media URLs on this host answer a small PNG without a network; any other URL is really fetched. */
export const FIXTURE_MEDIA_HOST = 'media.example.com';

/** A sandbox app that accepts {@link INGEST_SECRET} on /webhooks/*, with a populated sapphire account. */
export async function makePopulatedApp(overrides: Parameters<typeof makeTestApp>[0] = {}) {
  const t = makeTestApp({ ingestSecrets: [INGEST_SECRET], ...overrides });
  const fetchMedia = t.deps.fetchMedia;
  t.deps.fetchMedia = async (url, kind) =>
    new URL(url).hostname === FIXTURE_MEDIA_HOST
      ? { ok: true, contentType: 'image/png', bytes: Buffer.from('89504e470d0a1a0a', 'hex') }
      : fetchMedia(url, kind);
  // Not in the 555-0110..0199 block the account's lines are drawn from at random: a person who is
  // also one of the account's lines is left out of a group, which then has too few members.
  const main = await populate(t, await t.createAccount(), ['+12124567140', '+12124567141', '+12124567142'], 'main');
  return { t, ...main };
}
