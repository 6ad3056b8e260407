/** Sends through the real services (not HTTP) for the tests of the delivery core. */
import type { AccountRow } from '../../src/db/rows.ts';
import type { MessageView } from '../../src/domain/views.ts';
import { type SendGroupMessageInput, type SendMessageInput, sendGroupMessage, sendMessage } from '../../src/services/send-message.ts';
import type { TestAccount, TestApp } from './app.ts';
import { ALICE, BOB } from './fixtures.ts';

/** Where the tests ask for status callbacks. */
export const CALLBACK_URL = 'https://hooks.example.com/status';

/** The stored account behind a test account. */
export async function accountRow(t: TestApp, account: TestAccount): Promise<AccountRow> {
  const row = await t.store.accounts.findByKeyId(account.api_key_id);
  if (!row) throw new Error(`no account for ${account.email}`);
  return row;
}

/** A one-to-one send to ALICE with a status callback, unless `input` says otherwise. */
export async function send(
  t: TestApp,
  account: TestAccount,
  input: Partial<SendMessageInput> = {},
  idempotencyKey?: string,
): Promise<MessageView> {
  return (
    await sendMessage(
      t.deps,
      await accountRow(t, account),
      { number: ALICE, content: 'hello', statusCallback: CALLBACK_URL, ...input },
      idempotencyKey,
    )
  ).body;
}

/** A group send to ALICE and BOB, unless `input` says otherwise. */
export async function sendGroup(t: TestApp, account: TestAccount, input: Partial<SendGroupMessageInput> = {}): Promise<MessageView> {
  return (await sendGroupMessage(t.deps, await accountRow(t, account), { numbers: [ALICE, BOB], content: 'hello all', ...input })).body;
}
