import { expect } from 'vitest';
import type { AppDeps } from '../../src/http/app-deps.ts';
import { addReceiveWebhooks, removeReceiveWebhooks } from '../../src/services/account-webhooks.ts';
import { addLines, type CreatedAccount, createAccount, rotateSecret } from '../../src/services/accounts.ts';
import { receiveSandboxInbound } from '../../src/services/sandbox.ts';
import { ALICE, BOB, CAROL, show } from './fixtures.ts';
import { jsonRequest, type Reply, readReply } from './http.ts';

/** One process on the database: its deps, and its app answering requests. */
export type Instance = { deps: AppDeps; request(path: string, init: RequestInit): Response | Promise<Response> };

function headersOf(account: Pick<CreatedAccount, 'api_key_id' | 'api_secret_key'>): Record<string, string> {
  return { 'svc-api-key-id': account.api_key_id, 'svc-api-secret-key': account.api_secret_key };
}

async function call(
  instance: Instance,
  account: Pick<CreatedAccount, 'api_key_id' | 'api_secret_key'>,
  method: string,
  path: string,
  body?: unknown,
): Promise<Reply> {
  return readReply(await instance.request(path, jsonRequest(method, headersOf(account), body)));
}

async function accountRow(instance: Instance, email: string) {
  const row = await instance.deps.store.accounts.findByEmail(email);
  if (!row) throw new Error(`no account ${email}`);
  return row;
}

/** The URLs of the account's receive deliveries, as `reader` lists them. */
async function receiveUrls(reader: Instance, account: CreatedAccount): Promise<string[]> {
  const reply = await call(reader, account, 'GET', '/accounts/webhooks/deliveries');
  expect(reply.status, show(reply.body)).toBe(200);
  return (reply.body.deliveries as { url: string; event_type: string }[])
    .filter((row) => row.event_type === 'message.received')
    .map((row) => row.url);
}

/**
 * `writer` changes what `reader` keeps in its account cache (having read each first), and `reader`
 * answers with the change: a revoked key refused, an added line accepted, a new webhook URL called,
 * an opt-out honoured. `heard` waits until the reader was told of the writer's last change (on
 * PostgreSQL, its notification; on SQLite there is nothing to wait for).
 */
export async function expectNoStaleReads(writer: Instance, reader: Instance, heard: () => Promise<void>): Promise<void> {
  const email = `cache-${Date.now()}@example.com`;
  const account = await createAccount(writer.deps, { email, plan: 'sapphire' });
  await heard();

  // A new line: refused as from_number while the account lacks it, accepted once it has it.
  const line = '+14155559876';
  const before = await call(reader, account, 'POST', '/api/send-message', { number: ALICE, content: 'x', from_number: line });
  expect(before.status, show(before.body)).toBe(400);
  await addLines(writer.deps, email, [line]);
  await heard();
  const after = await call(reader, account, 'POST', '/api/send-message', { number: ALICE, content: 'x', from_number: line });
  expect(after.status, show(after.body)).toBe(202);

  // The receive webhook moves from one URL to another: the reader's next inbound goes to the new one.
  const row = await accountRow(writer, email);
  await addReceiveWebhooks(writer.deps, row, ['https://old.example/hook']);
  await heard();
  await receiveSandboxInbound(reader.deps, await accountRow(reader, email), { number: BOB, content: 'one' });
  expect(await receiveUrls(reader, account)).toEqual(['https://old.example/hook']);
  await removeReceiveWebhooks(writer.deps, row, ['https://old.example/hook']);
  await addReceiveWebhooks(writer.deps, row, ['https://new.example/hook']);
  await heard();
  await receiveSandboxInbound(reader.deps, await accountRow(reader, email), { number: BOB, content: 'two' });
  expect((await receiveUrls(reader, account)).sort()).toEqual(['https://new.example/hook', 'https://old.example/hook']);

  // An opt-out recorded by the writer refuses the reader's next send to that person.
  const optOut = await call(writer, account, 'POST', '/api/v2/contacts/opt-out', { number: CAROL, opted_out: true });
  expect(optOut.status, show(optOut.body)).toBe(200);
  await heard();
  const refused = await call(reader, account, 'POST', '/api/send-message', { number: CAROL, content: 'x' });
  expect(refused.status, show(refused.body)).toBe(400);

  // The key rotated: the old secret, which the reader accepted a moment ago, is refused at once.
  expect((await call(reader, account, 'GET', '/api/v2/contacts')).status).toBe(200);
  const rotated = await rotateSecret(writer.deps, email);
  await heard();
  expect((await call(reader, account, 'GET', '/api/v2/contacts')).status).toBe(401);
  expect((await call(reader, { ...account, ...rotated }, 'GET', '/api/v2/contacts')).status).toBe(200);
}
