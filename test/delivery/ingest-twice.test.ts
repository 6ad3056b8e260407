import { describe, expect, it } from 'vitest';
import { recordHandover } from '../../src/services/handover.ts';
import { makeTestApp } from '../helpers/app.ts';
import { send } from '../helpers/delivery.ts';
import { show } from '../helpers/fixtures.ts';
import { INGEST_SECRET, postIngest, statusCallback } from '../helpers/ingest.ts';
import { callbackStatuses } from '../helpers/outbox.ts';

/**
 * A relay registers /webhooks/status both as each send's status_callback and as the provider's
 * outbound webhook, so each status arrives twice under two webhook-ids: it is applied once.
 */
describe('a status from status_callback and from the outbound webhook', () => {
  it('is applied once, with one callback and one message.updated event', async () => {
    const t = makeTestApp({ ingestSecrets: [INGEST_SECRET], transportName: 'upstream' });
    const account = await t.createAccount();
    const handle = (await send(t, account)).message_handle;
    await recordHandover(t.deps, handle, { transportHandle: 'up-twice' });
    const headers = (webhookId: string) => ({ 'svc-signing-secret': INGEST_SECRET, 'webhook-id': webhookId });

    for (const webhookId of ['msg_from_status_callback', 'msg_from_outbound_webhook']) {
      const reply = await postIngest(t, '/webhooks/status', statusCallback('up-twice', 'DELIVERED'), headers(webhookId));
      expect(reply.status, show(reply.body)).toBe(200);
    }

    expect(await callbackStatuses(t, handle)).toEqual(['QUEUED', 'SENT', 'DELIVERED']);
    const applied = (await t.store.messages.history(handle)).filter((row) => row.applied && row.status === 'DELIVERED');
    expect(applied).toHaveLength(1);
    const accountId = (await t.store.accounts.findByKeyId(account.api_key_id))!.id;
    const updates = (await t.store.accountEvents.after(accountId, 0, 100)).filter((event) => event.type === 'message.updated');
    expect(updates.map((event) => JSON.parse(event.data).status)).toEqual(['SENT', 'DELIVERED']);
  });
});
