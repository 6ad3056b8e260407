import { describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { accountRow } from '../helpers/delivery.ts';
import { show } from '../helpers/fixtures.ts';
import { INGEST_SECRET, postIngest } from '../helpers/ingest.ts';

/**
 * A tenant's inbound path (/webhooks/receive) is held to the account's write limit and contacts
 * quota, as its API is: an inbound over the limit is answered 429 with Retry-After and nothing
 * written (the relay retries it), and a group's participants beyond the contacts quota are stored
 * as members without becoming contacts, so no reported message is lost.
 */

function person(index: number): string {
  return `+1415555${String(index).padStart(4, '0')}`;
}

function inbound(handle: string, toNumber: string, extra: Record<string, unknown> = {}) {
  return {
    message_handle: handle,
    number: person(9000),
    from_number: person(9000),
    to_number: toNumber,
    content: 'hello',
    is_outbound: false,
    status: 'RECEIVED',
    ...extra,
  };
}

function receive(t: TestApp, body: unknown) {
  return postIngest(t, '/webhooks/receive', body, { 'svc-signing-secret': INGEST_SECRET });
}

async function liveContacts(t: TestApp, accountId: string): Promise<number> {
  return t.store.contacts.countLive(accountId);
}

describe('the inbound path under the account limits', () => {
  it('answers 429 with Retry-After past the write limit, writing nothing, and takes the message once the minute passed', async () => {
    const t = makeTestApp({ ingestSecrets: [INGEST_SECRET], transportName: 'upstream', writeRateLimitPerMinute: 10 });
    const account = await t.createAccount();
    const other = await t.createAccount();
    const line = account.numbers[0]!;
    for (let index = 0; index < 10; index++) {
      const reply = await receive(t, inbound(`in-${index}`, line));
      expect(reply.status, show(reply.body)).toBe(200);
    }
    const refused = await receive(t, inbound('in-over', line));
    expect(refused.status, show(refused.body)).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await t.store.messages.findByAnyHandle('in-over')).toBeUndefined();
    // Another account's inbound is not held back by this one's.
    expect((await receive(t, inbound('other-1', other.numbers[0]!))).status).toBe(200);

    t.clock.advance(60_000);
    const retried = await receive(t, inbound('in-over', line));
    expect(retried.status, show(retried.body)).toBe(200);
    expect(await t.store.messages.findByAnyHandle('in-over')).toMatchObject({ content: 'hello' });
  });

  it('counts a long text and a group’s participants against the limit', async () => {
    const t = makeTestApp({ ingestSecrets: [INGEST_SECRET], transportName: 'upstream', writeRateLimitPerMinute: 20 });
    const account = await t.createAccount();
    const line = account.numbers[0]!;
    const long = await receive(t, inbound('long-1', line, { content: 'x'.repeat(100 * 1024) }));
    expect(long.status, show(long.body)).toBe(200);
    const participants = Array.from({ length: 15 }, (_, index) => person(index));
    const group = await receive(t, inbound('group-1', line, { group_id: 'g-1', participants: [...participants, line] }));
    expect(group.status, show(group.body)).toBe(429);
  });

  it('stores a group past the contacts quota with all its members, making contacts only up to the quota', async () => {
    const t = makeTestApp({ ingestSecrets: [INGEST_SECRET], transportName: 'upstream', quotas: { TEXTRELAY_CONTACTS_QUOTA: 5 } });
    const account = await t.createAccount();
    const accountId = (await accountRow(t, account)).id;
    const line = account.numbers[0]!;
    const participants = Array.from({ length: 30 }, (_, index) => person(index));
    const reply = await receive(
      t,
      inbound('group-1', line, {
        from_number: participants[0],
        number: participants[0],
        group_id: 'g-1',
        participants: [...participants, line],
      }),
    );
    expect(reply.status, show(reply.body)).toBe(200);
    const message = await t.store.messages.findByAnyHandle('group-1');
    expect(message).toMatchObject({ messageType: 'group' });
    expect((await t.store.groups.members(message!.groupId!)).length).toBe(30);
    expect(await liveContacts(t, accountId)).toBe(5);
  });
});
