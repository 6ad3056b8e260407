import { describe, expect, it } from 'vitest';
import { recordHandover } from '../../src/services/handover.ts';
import { makeTestApp, type TestAccount, type TestApp } from '../helpers/app.ts';
import { send } from '../helpers/delivery.ts';
import { expectAccepted, expectMessageError, listMessages } from '../helpers/expect.ts';
import { ALICE, BOB, DAVE, distinctNumbers, show } from '../helpers/fixtures.ts';
import { INGEST_SECRET, postIngest, statusCallback } from '../helpers/ingest.ts';
import { callbackStatuses } from '../helpers/outbox.ts';

/**
 * Requests that arrive in one burst (one event-loop turn) may share one commit: a repeated
 * Idempotency-Key, a duplicate status event or a refused item affects only itself, never its
 * batch-mates, and two statuses of one message in one burst never move it backwards.
 */

const RANK: Record<string, number> = { QUEUED: 0, SENT: 1, DELIVERED: 2, READ: 3, ERROR: 4 };
/** TEXTRELAY_RATE_LIMIT_PER_MINUTE of these tests: high enough for the good account's whole burst. */
const SENDS_PER_MINUTE = 20;

const sendJson = (t: TestApp, account: TestAccount, body: unknown, headers: Record<string, string> = {}) =>
  t.call('POST', '/api/send-message', account, body, headers);

const status = (t: TestApp, transportHandle: string, value: string, webhookId?: string) =>
  postIngest(t, '/webhooks/status', statusCallback(transportHandle, value), {
    'svc-signing-secret': INGEST_SECRET,
    ...(webhookId === undefined ? {} : { 'webhook-id': webhookId }),
  });

/** A message of `account`, handed over to the upstream, which knows it as `transportHandle`. */
async function handedOver(t: TestApp, account: TestAccount, number: string, transportHandle: string): Promise<string> {
  const handle = (await send(t, account, { number })).message_handle;
  await recordHandover(t.deps, handle, { transportHandle });
  return handle;
}

/** The statuses the message's applied events set, in the order they were recorded. */
async function appliedStatuses(t: TestApp, handle: string): Promise<string[]> {
  return (await t.store.messages.history(handle)).filter((event) => event.applied).map((event) => event.status);
}

function expectNeverBackwards(statuses: readonly string[]): void {
  const ranks = statuses.map((value) => RANK[value]!);
  expect(ranks, show(statuses)).toEqual([...ranks].sort((a, b) => a - b));
}

describe('batch-mates in one burst', () => {
  it('answer and store each send by its own outcome: repeated keys, refusals and rate limits stay with their item', async () => {
    const t = makeTestApp({ ingestSecrets: [INGEST_SECRET], transportName: 'upstream', rateLimitPerMinute: SENDS_PER_MINUTE });
    const good = await t.createAccount();
    const busy = await t.createAccount();
    const stranger = await t.createAccount();
    const optOut = await t.call('POST', '/api/v2/contacts/opt-out', good, { number: DAVE });
    expect(optOut.status, show(optOut.body)).toBe(200);
    const strangersMessage = (await send(t, stranger, { number: ALICE })).message_handle;
    // The busy account has one send left this minute.
    for (let i = 0; i < SENDS_PER_MINUTE - 1; i++) expectAccepted(await sendJson(t, busy, { number: BOB, content: `earlier ${i}` }));

    const numbers = distinctNumbers(8);
    const goods = numbers.slice(0, 6).map((number, i) => ({ number, content: `good ${i}` }));
    const twice = { number: numbers[6]!, content: 'one key, sent twice at once' };
    const clash = [
      { number: numbers[7]!, content: 'one key, first body' },
      { number: numbers[7]!, content: 'one key, second body' },
    ];
    const [goodReplies, twiceReplies, clashReplies, optedOut, badReplyTo, busyReplies] = await Promise.all([
      Promise.all(goods.map((body) => sendJson(t, good, body))),
      Promise.all([1, 2].map(() => sendJson(t, good, twice, { 'Idempotency-Key': 'twice' }))),
      Promise.all(clash.map((body) => sendJson(t, good, body, { 'Idempotency-Key': 'clash' }))),
      sendJson(t, good, { number: DAVE, content: 'to someone who said STOP' }),
      sendJson(t, good, { number: ALICE, content: 'a reply to another account’s message', reply_to: { message_handle: strangersMessage } }),
      Promise.all([0, 1, 2].map((i) => sendJson(t, busy, { number: BOB, content: `burst ${i}` }))),
    ]);

    // Each good send answers as it would alone.
    goodReplies.forEach((reply, i) => {
      expectAccepted(reply);
      expect(reply.body, show(reply.body)).toMatchObject({ number: goods[i]!.number, content: goods[i]!.content, error_code: null });
    });
    // The same key twice in one burst: one message, both answered with it.
    for (const reply of twiceReplies) expectAccepted(reply);
    expect(twiceReplies[1]!.body).toEqual(twiceReplies[0]!.body);
    // The same key with two bodies: the first stored answers 202, the other 409 and stores nothing.
    const clashStatuses = clashReplies.map((reply) => reply.status).sort();
    expect(clashStatuses, show(clashReplies.map((reply) => reply.body))).toEqual([202, 409]);
    const clashWinner = clashReplies.find((reply) => reply.status === 202)!;
    expectMessageError(clashReplies.find((reply) => reply.status === 409)!, 409, 4090);
    expectMessageError(optedOut, 400, 4000);
    expect(optedOut.body.error_message).toContain(DAVE);
    expectMessageError(badReplyTo, 400, 4000);
    expect(badReplyTo.body.error_message).toContain(strangersMessage);
    const busyStatuses = busyReplies.map((reply) => reply.status).sort();
    expect(busyStatuses, show(busyReplies.map((reply) => reply.body))).toEqual([202, 429, 429]);
    for (const reply of busyReplies.filter((r) => r.status === 429)) expectMessageError(reply, 429, 4001);

    // Stored: every accepted send once; nothing of a refused one.
    const stored = await listMessages(t, good);
    expect(stored.map((message) => message.content).sort()).toEqual(
      [...goods.map((body) => body.content), twice.content, clashWinner.body.content].sort(),
    );
    const byHandle = new Map(stored.map((message) => [message.message_handle, message]));
    for (const reply of [...goodReplies, twiceReplies[0]!, clashWinner])
      expect(byHandle.get(reply.body.message_handle)?.content).toBe(reply.body.content);
    expect((await listMessages(t, busy)).map((message) => message.content).filter((content) => content.startsWith('burst'))).toEqual([
      busyReplies.find((reply) => reply.status === 202)!.body.content,
    ]);
    expect(await listMessages(t, stranger)).toHaveLength(1);
  });

  it('applies each status event of a burst once: a duplicate changes nothing, its batch-mates apply as alone', async () => {
    const t = makeTestApp({ ingestSecrets: [INGEST_SECRET], transportName: 'upstream' });
    const account = await t.createAccount();
    const numbers = distinctNumbers(6);
    const handles = await Promise.all(numbers.map((number, i) => handedOver(t, account, number, `iso-${i}`)));
    const [redelivered, repeated, bothAtOnce, ...others] = handles;

    const replies = await Promise.all([
      // The same event twice under one webhook-id, and the same report twice without one.
      status(t, 'iso-0', 'SENT', 'evt-redelivered'),
      status(t, 'iso-0', 'SENT', 'evt-redelivered'),
      status(t, 'iso-1', 'DELIVERED'),
      status(t, 'iso-1', 'DELIVERED'),
      // SENT and DELIVERED of one message, posted at once.
      status(t, 'iso-2', 'SENT', 'evt-both-sent'),
      status(t, 'iso-2', 'DELIVERED', 'evt-both-delivered'),
      ...others.map((_, i) => status(t, `iso-${i + 3}`, 'DELIVERED', `evt-other-${i}`)),
      postIngest(
        t,
        '/webhooks/receive',
        { message_handle: 'iso-in-1', number: ALICE, to_number: account.numbers[0], content: 'in the same burst' },
        { 'svc-signing-secret': INGEST_SECRET },
      ),
    ]);

    expect(
      replies.map((reply) => reply.status),
      show(replies.map((reply) => reply.body)),
    ).toEqual(replies.map(() => 200));

    const history0 = await t.store.messages.history(redelivered!);
    expect(
      history0.filter((event) => event.sourceEventId === 'evt-redelivered'),
      show(history0),
    ).toHaveLength(1);
    expect(await callbackStatuses(t, redelivered!)).toEqual(['QUEUED', 'SENT']);

    const history1 = await t.store.messages.history(repeated!);
    const delivered = history1.filter((event) => event.status === 'DELIVERED');
    expect(delivered, show(history1)).toMatchObject([{ applied: true, repeats: 1 }]);
    expect(await callbackStatuses(t, repeated!)).toEqual(['QUEUED', 'SENT', 'DELIVERED']);

    // Whichever of the two came first, the message ends DELIVERED and its callbacks go out in order.
    expect((await t.store.messages.findByAnyHandle(bothAtOnce!))?.status).toBe('DELIVERED');
    expectNeverBackwards(await appliedStatuses(t, bothAtOnce!));
    expect(await callbackStatuses(t, bothAtOnce!)).toEqual(['QUEUED', 'SENT', 'DELIVERED']);

    for (const handle of others) {
      expect((await t.store.messages.findByAnyHandle(handle!))?.status).toBe('DELIVERED');
      expect(await callbackStatuses(t, handle!)).toEqual(['QUEUED', 'SENT', 'DELIVERED']);
    }
    const inbound = (await listMessages(t, account)).filter((message) => !message.is_outbound);
    expect(inbound.map((message) => message.content)).toEqual(['in the same burst']);
  });

  it('keeps each message’s callbacks in order when bursts of its statuses arrive in any order', async () => {
    const t = makeTestApp({ ingestSecrets: [INGEST_SECRET], transportName: 'upstream' });
    const account = await t.createAccount();
    const numbers = distinctNumbers(12);
    const handles = await Promise.all(numbers.map((number, i) => handedOver(t, account, number, `order-${i}`)));
    // Each message gets SENT, DELIVERED and READ in one burst, in a different order each (all six orders, twice).
    const orders = [
      ['SENT', 'DELIVERED', 'READ'],
      ['SENT', 'READ', 'DELIVERED'],
      ['DELIVERED', 'SENT', 'READ'],
      ['DELIVERED', 'READ', 'SENT'],
      ['READ', 'SENT', 'DELIVERED'],
      ['READ', 'DELIVERED', 'SENT'],
    ];
    const replies = await Promise.all(
      handles.flatMap((_, i) => orders[i % orders.length]!.map((value) => status(t, `order-${i}`, value, `evt-order-${i}-${value}`))),
    );
    expect(
      replies.map((reply) => reply.status),
      show(replies.map((reply) => reply.body)),
    ).toEqual(replies.map(() => 200));

    for (const handle of handles) {
      expect((await t.store.messages.findByAnyHandle(handle))?.status).toBe('READ');
      expectNeverBackwards(await appliedStatuses(t, handle));
      expect(await callbackStatuses(t, handle)).toEqual(['QUEUED', 'SENT', 'DELIVERED', 'READ']);
    }
  });
});
