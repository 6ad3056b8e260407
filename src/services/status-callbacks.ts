import type { AccountRow, MessageRow } from '../db/rows.ts';
import type { MessageInsert, OutboxEntry, WebhookSubscriptionRow } from '../db/store.ts';
import type { MessageFacts } from '../domain/views.ts';
import { toStatusCallbackPayload } from '../domain/webhook-payloads.ts';
import type { ServiceDeps } from './deps.ts';
import { newWebhookId } from './ids.ts';
import { fanOutDeliveries } from './webhook-fanout.ts';

/** Who hears of a message's status changes: its status_callback and the account's `outbound` webhooks. */
export type StatusAudience = { account: AccountRow; webhooks: readonly WebhookSubscriptionRow[] };

function hasStatusCallback<M extends Pick<MessageRow, 'statusCallback'>>(message: M): message is M & { statusCallback: string } {
  return message.statusCallback !== null && message.statusCallback !== '';
}

/** The message's audience, read once per report; none when nobody listens, and the account is then not read at all. */
export async function statusAudience(
  deps: ServiceDeps,
  message: Pick<MessageRow, 'accountId' | 'handle' | 'statusCallback'>,
  account?: AccountRow,
): Promise<StatusAudience | undefined> {
  const webhooks = await deps.store.webhookSubscriptions.ofType(message.accountId, 'outbound');
  if (webhooks.length === 0 && !hasStatusCallback(message)) return undefined;
  const owner = account ?? (await deps.store.accounts.findById(message.accountId));
  if (!owner) throw new Error(`message ${message.handle} belongs to no account`);
  return { account: owner, webhooks };
}

/**
 * The callbacks of the message's status, as it now is: to its status_callback (when the client
 * asked for one) and to every `outbound` webhook of the account: one payload, ordered per message and URL alike.
 */
export function statusCallbacks(message: MessageFacts & { accountId: string }, audience: StatusAudience | undefined): OutboxEntry[] {
  if (audience === undefined) return [];
  const { account, webhooks } = audience;
  const payload = JSON.stringify(toStatusCallbackPayload(message, account));
  const own: OutboxEntry[] = hasStatusCallback(message)
    ? [
        {
          webhookId: newWebhookId(),
          accountId: account.id,
          messageHandle: message.handle,
          eventType: 'message.status',
          url: message.statusCallback,
          payload,
        },
      ]
    : [];
  return [
    ...own,
    ...fanOutDeliveries(account, webhooks, { type: 'outbound', eventType: 'message.outbound', orderKey: message.handle, payload }),
  ];
}

/** The message a send's row becomes once inserted, as its QUEUED callbacks show it. */
export function asInserted(row: MessageInsert): MessageFacts & { accountId: string } {
  return {
    ...row,
    content: row.content ?? '',
    mediaUrl: row.mediaUrl ?? '',
    sendStyle: row.sendStyle ?? '',
    statusCallback: row.statusCallback ?? null,
    recipients: row.recipients ?? null,
    groupId: row.groupId ?? null,
    errorCode: row.errorCode ?? null,
    errorMessage: row.errorMessage ?? null,
    errorDetail: row.errorDetail ?? null,
    wasDowngraded: row.wasDowngraded ?? null,
    replyToHandle: row.replyToHandle ?? null,
    replyToPartIndex: row.replyToPartIndex ?? null,
    seatId: row.seatId ?? null,
    optedOut: row.optedOut ?? false,
  };
}
