import SendblueAPI from 'sendblue';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import type { AccountEventType } from '../../src/domain/account-events.ts';
import { workerIdOf } from '../../src/domain/line-state.ts';
import { recordAccountEvent } from '../../src/services/account-events.ts';
import { addLines, removeLines } from '../../src/services/accounts.ts';
import { makeTestApp, type TestAccount, type TestApp } from '../helpers/app.ts';
import { type Listening, serveOnLoopback } from '../helpers/listen.ts';

let t: TestApp;
let server: Listening;
const opened: AbortController[] = [];

afterEach(async () => {
  for (const controller of opened.splice(0)) controller.abort();
  t.notifier.endWatchers();
  await server.close();
  await t.close();
});

/** A real server socket over a fresh app; a slow poll so that wake-ups, not polls, carry the tests unless they say so. */
async function start(settings: { perAccount?: number; heartbeatMs?: number; pollMs?: number } = {}) {
  t = makeTestApp();
  server = await serveOnLoopback(buildApp({ ...t.deps, eventStreams: { heartbeatMs: 60_000, pollMs: 5_000, ...settings } }).fetch);
}

/** Appends an event after a commit, as the services do, and wakes the streams. */
async function write(account: TestAccount, type: AccountEventType, data: Record<string, unknown>, wake = true): Promise<void> {
  const accountId = await accountIdOf(account);
  await t.store.transaction((store) => recordAccountEvent({ ...t.deps, store }, accountId, type, data, t.clock.now()));
  if (wake) t.notifier.accountActivity(accountId);
}

async function accountIdOf(account: TestAccount): Promise<string> {
  return (await t.store.accounts.findByEmail(account.email))!.id;
}

type Frame = { id?: string; data?: string; comment?: string };

/** Opens the stream over HTTP and reads it frame by frame. */
async function open(account: TestAccount, query = '', headers: Record<string, string> = {}) {
  const controller = new AbortController();
  opened.push(controller);
  const response = await fetch(`${server.url}/api/v2/events${query}`, {
    headers: { ...account.headers, accept: 'text/event-stream', ...headers },
    signal: controller.signal,
  });
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  return {
    response,
    close: () => controller.abort(),
    /** The next frame, or undefined when the server ended the stream. */
    async next(): Promise<Frame | undefined> {
      for (;;) {
        const end = buffer.indexOf('\n\n');
        if (end >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const frame: Frame = {};
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) frame.comment = line.slice(1).trim();
            else if (line.startsWith('id: ')) frame.id = line.slice(4);
            else if (line.startsWith('data: ')) frame.data = line.slice(6);
          }
          return frame;
        }
        const { done, value } = await reader.read();
        if (done) return undefined;
        buffer += decoder.decode(value, { stream: true });
      }
    },
    /** The next `count` events (heartbeats skipped), parsed. */
    async events(count: number) {
      const events: { id: string; type: string; data: Record<string, unknown> }[] = [];
      while (events.length < count) {
        const frame = await this.next();
        if (!frame) throw new Error(`the stream ended after ${events.length} events`);
        if (frame.data === undefined) continue;
        const event = JSON.parse(frame.data);
        expect(frame.id).toBe(event.id);
        events.push(event);
      }
      return events;
    },
  };
}

describe('GET /api/v2/events', () => {
  it('streams events written after connecting as frames with an id and AccountEvent JSON', async () => {
    await start();
    const account = await t.createAccount();
    const stream = await open(account);
    expect(stream.response.status).toBe(200);
    expect(stream.response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(stream.response.headers.get('cache-control')).toBe('no-cache');
    expect(stream.response.headers.get('x-accel-buffering')).toBe('no');

    await write(account, 'message.created', { message_handle: 'h1', status: 'QUEUED' });
    const [event] = await stream.events(1);
    expect(event).toMatchObject({ type: 'message.created', data: { message_handle: 'h1', status: 'QUEUED' }, version: 1 });
    expect(new Date((event as unknown as { occurred_at: string }).occurred_at).toISOString()).toBe(
      (event as unknown as { occurred_at: string }).occurred_at,
    );
  });

  it('sees an event another process wrote (no wake-up) through its slow poll', async () => {
    await start({ pollMs: 50 });
    const account = await t.createAccount();
    const stream = await open(account);
    await write(account, 'contact.created', { contact_id: 'c1', phone: '+14155550100' }, false);
    expect((await stream.events(1))[0]!.type).toBe('contact.created');
  });

  it('resumes after Last-Event-ID with every later event once, in order, while events keep coming', async () => {
    await start({ pollMs: 20 });
    const account = await t.createAccount();
    const seen: string[] = [];
    let writing = true;
    let written = 0;
    const writer = (async () => {
      while (writing) {
        await write(account, 'message.updated', { message_handle: `h${written}`, status: 'SENT' });
        written += 1;
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
    })();
    let lastId: string | undefined;
    for (let connection = 0; connection < 4; connection++) {
      const stream = await open(account, '', lastId === undefined ? {} : { 'last-event-id': lastId });
      const events = await stream.events(30);
      stream.close();
      seen.push(...events.map((event) => String(event.data.message_handle)));
      lastId = events.at(-1)!.id;
    }
    writing = false;
    await writer;
    const first = Number(seen[0]!.slice(1));
    expect(seen).toEqual(seen.map((_, index) => `h${first + index}`));
  });

  it('accepts last_event_id in the query, and replays a resume longer than one read batch', async () => {
    await start();
    const account = await t.createAccount();
    for (let index = 0; index < 450; index++)
      await write(account, 'typing.changed', { number: '+14155550100', is_typing: index % 2 === 0 }, false);
    const stream = await open(account, '?last_event_id=0&types=typing.changed');
    const events = await stream.events(450);
    expect(new Set(events.map((event) => event.id)).size).toBe(450);
    expect(events.map((event) => Number(event.id))).toEqual([...events.map((event) => Number(event.id))].sort((a, b) => a - b));
  });

  it('sends only the types asked for', async () => {
    await start();
    const account = await t.createAccount();
    const stream = await open(account, '?types=message.received,contact.created');
    await write(account, 'message.created', { message_handle: 'skip' });
    await write(account, 'contact.created', { contact_id: 'c1', phone: '+14155550100' });
    await write(account, 'message.received', { message_handle: 'in' });
    expect((await stream.events(2)).map((event) => event.type)).toEqual(['contact.created', 'message.received']);
  });

  it('refuses an unknown type with 400/4000 naming the allowed ones, and a bad Last-Event-ID', async () => {
    await start();
    const account = await t.createAccount();
    const answer = await t.call('GET', '/api/v2/events?types=message.created,message.deleted', account);
    expect(answer.status).toBe(400);
    expect(answer.body.error_code).toBe(4000);
    expect(answer.body.error_message).toContain('message.deleted');
    expect(answer.body.error_message).toContain('line.assigned');
    const badResume = await fetch(`${server.url}/api/v2/events`, { headers: { ...account.headers, 'last-event-id': 'abc' } });
    expect(badResume.status).toBe(400);
  });

  it('answers 401 before anything else', async () => {
    await start();
    const answer = await fetch(`${server.url}/api/v2/events?types=nope`);
    expect(answer.status).toBe(401);
  });

  it('refuses a stream over the cap with 429/4001 and Retry-After, and frees the slot when a client leaves', async () => {
    await start({ perAccount: 2 });
    const account = await t.createAccount();
    const first = await open(account);
    await open(account);
    const refused = await fetch(`${server.url}/api/v2/events`, { headers: account.headers });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    expect((await refused.json()).error_code).toBe(4001);
    const other = await open(await t.createAccount());
    expect(other.response.status).toBe(200);

    first.close();
    await expect.poll(async () => (await open(account)).response.status).toBe(200);
  });

  it("never shows another account's events", async () => {
    await start();
    const mine = await t.createAccount();
    const theirs = await t.createAccount();
    const stream = await open(mine, '', { 'last-event-id': '0' });
    await write(theirs, 'message.received', { message_handle: 'theirs' });
    await write(mine, 'message.received', { message_handle: 'mine' });
    const events = await stream.events(3);
    expect(events.map((event) => event.data.message_handle ?? event.type)).toEqual(['line.assigned', 'line.assigned', 'mine']);
  });

  it('numbers each account’s events on their own, 1, 2, 3... whatever other accounts do, and resumes by those numbers', async () => {
    await start();
    const mine = await t.createAccount();
    const theirs = await t.createAccount();
    for (let round = 0; round < 5; round++) {
      await write(mine, 'message.received', { message_handle: `mine ${round}` });
      await write(theirs, 'message.received', { message_handle: `theirs ${round}` });
      await write(theirs, 'message.received', { message_handle: `theirs ${round} again` });
    }
    const numbers = (count: number) => Array.from({ length: count }, (_, index) => String(index + 1));
    for (const [account, count] of [
      [mine, mine.numbers.length + 5],
      [theirs, theirs.numbers.length + 10],
    ] as const) {
      const stream = await open(account, '', { 'last-event-id': '0' });
      expect((await stream.events(count)).map((event) => event.id)).toEqual(numbers(count));
      stream.close();
    }
    const last = theirs.numbers.length + 10;
    const resumed = await open(theirs, '', { 'last-event-id': String(last - 2) });
    expect((await resumed.events(2)).map((event) => [event.id, event.data.message_handle])).toEqual([
      [String(last - 1), 'theirs 4'],
      [String(last), 'theirs 4 again'],
    ]);
    await write(theirs, 'message.received', { message_handle: 'later' });
    expect((await resumed.events(1)).map((event) => [event.id, event.data.message_handle])).toEqual([[String(last + 1), 'later']]);
  });

  it('sends `: ping` heartbeats', async () => {
    await start({ heartbeatMs: 20 });
    const stream = await open(await t.createAccount());
    expect(await stream.next()).toEqual({ comment: 'ping' });
  });

  it('ends open streams when the process shuts down', async () => {
    await start();
    const stream = await open(await t.createAccount());
    t.notifier.endWatchers();
    expect(await stream.next()).toBeUndefined();
  });

  it('logs line.assigned on account creation and lines add, line.unassigned on lines remove', async () => {
    await start();
    const account = await t.createAccount({ numbers: ['+14155550101'] });
    const stream = await open(account, '', { 'last-event-id': '0' });
    await addLines(t.deps, account.email, ['+14155550102']);
    const events = await stream.events(2);
    expect(events.map((event) => [event.type, event.data])).toEqual([
      ['line.assigned', { sendblue_number: '+14155550101', worker_id: workerIdOf('+14155550101') }],
      ['line.assigned', { sendblue_number: '+14155550102', worker_id: workerIdOf('+14155550102') }],
    ]);
    expect(workerIdOf('+14155550101')).toMatch(/^w_[0-9a-f]{8}$/);

    await removeLines(t.deps, account.email, ['+14155550102']);
    const [removed] = await stream.events(1);
    expect([removed!.type, removed!.data]).toEqual([
      'line.unassigned',
      { sendblue_number: '+14155550102', worker_id: workerIdOf('+14155550102') },
    ]);
  });
});

describe('events.stream through the SDK', () => {
  it('yields parsed AccountEvents, filtered by types', async () => {
    await start({ heartbeatMs: 10 });
    const account = await t.createAccount();
    const client = new SendblueAPI({ apiKey: account.api_key_id, apiSecret: account.api_secret_key, baseURL: server.url, maxRetries: 0 });
    const stream = await client.events.stream({ types: 'message.created' });
    await write(account, 'typing.changed', { number: '+14155550100', is_typing: true });
    await write(account, 'message.created', { message_handle: 'sdk', status: 'QUEUED' });
    for await (const event of stream) {
      expect(event).toMatchObject({ type: 'message.created', data: { message_handle: 'sdk' }, version: 1 });
      expect(typeof event.id).toBe('string');
      break;
    }
  });

  it('rejects an unknown type with the SDK error class and the error shape', async () => {
    await start();
    const account = await t.createAccount();
    const client = new SendblueAPI({ apiKey: account.api_key_id, apiSecret: account.api_secret_key, baseURL: server.url, maxRetries: 0 });
    const refusal = await client.events.stream({ types: 'nope' }).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(SendblueAPI.BadRequestError);
    expect((refusal as { error: { error_code: number } }).error.error_code).toBe(4000);
  });
});
