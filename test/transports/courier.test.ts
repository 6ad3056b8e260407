import { afterEach, describe, expect, it } from 'vitest';
import type { HandoverReceipt, OutboundMessage } from '../../src/services/handover.ts';
import { recordStatus } from '../../src/services/record-status.ts';
import { type Courier, type CourierOptions, createCourier } from '../../src/transports/courier.ts';
import { type Transport, TransportRefusal } from '../../src/transports/transport.ts';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { send, sendGroup } from '../helpers/delivery.ts';
import { ALICE, BOB, CAROL, show } from '../helpers/fixtures.ts';
import { callbackStatuses } from '../helpers/outbox.ts';

/**
 * The courier carries committed QUEUED messages to the transport. The transport here is a fake
 * that records every hand-over and answers as each test tells it to.
 */

type Answer = (message: OutboundMessage, call: number) => Promise<HandoverReceipt>;

const accept: Answer = async (message) => ({ transportHandle: `t-${message.handle}` });

function fakeTransport(answer: Answer = accept, routeOf?: Transport['routeOf']) {
  const calls: OutboundMessage[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  const transport: Transport & { calls: OutboundMessage[]; waitForCalls(count: number): Promise<void> } = {
    name: 'upstream',
    ...(routeOf ? { routeOf } : {}),
    calls,
    send(message) {
      calls.push(message);
      for (const waiter of waiters.filter((w) => calls.length >= w.count)) waiter.resolve();
      return answer(message, calls.length);
    },
    start() {},
    async stop() {},
    /** Resolves once `count` hand-overs were attempted. */
    waitForCalls(count) {
      if (calls.length >= count) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ count, resolve }));
    },
  };
  return transport;
}

const couriers: Courier[] = [];
afterEach(async () => {
  await Promise.all(couriers.splice(0).map((courier) => courier.stop()));
});

/** A courier over `transport`; subscribed to the app's notifier unless told not to (a process that crashed before handing over). */
function startCourier(t: TestApp, transport: Transport, options: Partial<CourierOptions> & { subscribe?: boolean } = {}) {
  const { subscribe = true, ...overrides } = options;
  const courier = createCourier(t.deps, transport, { retryDelaysMs: [1, 1], concurrency: 4, ...overrides });
  if (subscribe) t.notifier.subscribe({ messageQueued: (handle) => courier.enqueue(handle) });
  couriers.push(courier);
  return courier;
}

async function until(condition: () => boolean | Promise<boolean>): Promise<void> {
  for (let waited = 0; !(await condition()); waited += 5) {
    if (waited > 5_000) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

async function messageOf(t: TestApp, handle: string) {
  return (await t.store.messages.findByAnyHandle(handle))!;
}

describe('courier: hand-over', () => {
  it('hands a message over after its send committed and stores the transport’s handle', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const seenAtHandover: unknown[] = [];
    const transport = fakeTransport(async (message) => {
      const stored = await messageOf(t, message.handle);
      seenAtHandover.push([t.db.$client.inTransaction, stored.status, stored.handedOverAt]);
      return { transportHandle: 'upstream-1' };
    });
    const courier = startCourier(t, transport);

    const sent = await send(t, account, {
      number: ALICE,
      content: 'carry me',
      mediaUrl: 'https://cdn.example.com/a.png',
      sendStyle: 'slam',
    });
    expect(transport.calls, 'never inside the request').toEqual([]);
    t.clock.advance(250);
    await courier.idle();

    expect(transport.calls).toEqual([
      {
        handle: sent.message_handle,
        accountId: (await messageOf(t, sent.message_handle)).accountId,
        messageType: 'message',
        lineNumber: sent.from_number,
        recipients: [ALICE],
        content: 'carry me',
        mediaUrl: 'https://cdn.example.com/a.png',
        sendStyle: 'slam',
        groupId: null,
        transportGroupId: null,
        seatId: null,
        replyTo: null,
      },
    ]);
    expect(seenAtHandover, 'committed, outside any transaction, still waiting').toEqual([[false, 'QUEUED', null]]);
    const message = await messageOf(t, sent.message_handle);
    expect([message.status, message.transportHandle, message.handedOverAt]).toEqual(['QUEUED', 'upstream-1', t.clock.now()]);
  });

  it('hands a group send over with its members and remembers the transport’s group id', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const transport = fakeTransport(async (message) => ({ transportHandle: `t-${message.handle}`, transportGroupId: 'up-group-1' }));
    const courier = startCourier(t, transport);
    const first = await sendGroup(t, account, { numbers: [ALICE, BOB, CAROL] });
    await courier.idle();
    expect(transport.calls[0]).toMatchObject({
      messageType: 'group',
      recipients: [ALICE, BOB, CAROL],
      groupId: first.group_id,
      transportGroupId: null,
    });
    await sendGroup(t, account, { numbers: undefined, groupId: first.group_id });
    await courier.idle();
    expect(transport.calls[1], 'the next send names the transport’s group').toMatchObject({
      groupId: first.group_id,
      transportGroupId: 'up-group-1',
    });
  });

  it('sends once however often the same handle is queued, and never a message already handed over or failed', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const transport = fakeTransport();
    const courier = startCourier(t, transport);
    const handle = (await send(t, account)).message_handle;
    courier.enqueue(handle);
    courier.enqueue(handle);
    await courier.idle();
    courier.enqueue(handle);
    await courier.idle();
    expect(transport.calls.map((call) => call.handle)).toEqual([handle]);

    const failed = (await send(t, account, { number: BOB })).message_handle;
    // The transport reported a failure before our courier got to it (the status arrived first).
    await recordStatus(t.deps, { handle: failed, status: 'ERROR', errorCode: 10001, source: 'upstream' });
    await courier.idle();
    expect(transport.calls.map((call) => call.handle)).toEqual([handle]);
  });

  it('does not hand over again when an idempotent send is replayed', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const transport = fakeTransport();
    const courier = startCourier(t, transport);
    const first = await send(t, account, { content: 'once' }, 'key-1');
    await courier.idle();
    const replay = await send(t, account, { content: 'once' }, 'key-1');
    await courier.idle();
    expect(replay.message_handle).toBe(first.message_handle);
    expect(transport.calls).toHaveLength(1);
  });
});

describe('courier: failures', () => {
  it('a refusal fails the message at once with the transport’s code', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const transport = fakeTransport(async () => {
      throw new TransportRefusal(4002, 'Blacklisted upstream');
    });
    const courier = startCourier(t, transport);
    const handle = (await send(t, account)).message_handle;
    await courier.idle();
    const message = await messageOf(t, handle);
    expect([message.status, message.errorCode, message.errorMessage, message.handedOverAt]).toEqual([
      'ERROR',
      4002,
      'Blacklisted upstream',
      null,
    ]);
    expect(transport.calls).toHaveLength(1);
    expect(await callbackStatuses(t, handle)).toEqual(['QUEUED', 'ERROR']);
  });

  it('retries other errors, then fails the message with 10001 once the retries are spent', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const transport = fakeTransport(async () => {
      throw new Error('connection reset');
    });
    const courier = startCourier(t, transport, { retryDelaysMs: [1, 1] });
    const handle = (await send(t, account)).message_handle;
    await transport.waitForCalls(3);
    await courier.idle();
    const message = await messageOf(t, handle);
    expect([message.status, message.errorCode, message.handedOverAt]).toEqual(['ERROR', 10001, null]);
    expect(message.errorMessage).toMatch(/3 attempts/);
    expect(transport.calls.map((call) => call.handle)).toEqual([handle, handle, handle]);
    expect(await callbackStatuses(t, handle)).toEqual(['QUEUED', 'ERROR']);
  });

  it('a retry that succeeds hands the message over', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const transport = fakeTransport(async (message, call) => {
      if (call < 3) throw new Error('503 from upstream');
      return { transportHandle: `t-${message.handle}` };
    });
    const courier = startCourier(t, transport, { retryDelaysMs: [1, 1, 1] });
    const handle = (await send(t, account)).message_handle;
    await transport.waitForCalls(3);
    await courier.idle();
    expect([(await messageOf(t, handle)).status, (await messageOf(t, handle)).transportHandle]).toEqual(['QUEUED', `t-${handle}`]);
  });

  it('a busy database while noting an accepted hand-over notes it again, without handing the message over again', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const transport = fakeTransport();
    const markHandedOver = t.queries.messages.markHandedOver;
    let notes = 0;
    t.queries.messages.markHandedOver = (...args) => {
      if (notes++ < 2) throw Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });
      markHandedOver(...args);
    };
    // One retry delay: a transport failure would end in ERROR after the second call; this must not.
    const courier = startCourier(t, transport, { retryDelaysMs: [1] });
    const handle = (await send(t, account)).message_handle;
    await until(() => notes >= 3);
    await courier.idle();
    const message = await messageOf(t, handle);
    expect([message.status, message.errorCode, message.transportHandle], show(message)).toEqual(['QUEUED', null, `t-${handle}`]);
    expect(
      transport.calls.map((call) => call.handle),
      'posted once',
    ).toEqual([handle]);
    expect(await callbackStatuses(t, handle)).toEqual(['QUEUED']);
  });

  it('a hand-over that cannot be noted is noted again a capped number of times, never posted again, then ends in ERROR with the reason', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const transport = fakeTransport();
    let notes = 0;
    t.queries.messages.markHandedOver = () => {
      notes += 1;
      throw new Error('UNIQUE constraint failed: groups.transport_group_id');
    };
    const courier = startCourier(t, transport, { retryDelaysMs: [1, 2, 4] });
    const handle = (await send(t, account)).message_handle;
    await until(async () => (await messageOf(t, handle)).status === 'ERROR');
    await courier.idle();
    await new Promise((resolve) => setTimeout(resolve, 50));

    const message = await messageOf(t, handle);
    expect([message.status, message.errorCode], show(message)).toEqual(['ERROR', 10001]);
    expect(message.errorMessage).toBe(
      'The upstream transport accepted the message, but recording its answer failed 4 times; it was not sent again',
    );
    expect(notes, 'the first note and one per retry delay').toBe(4);
    expect(transport.calls, 'posted once, never again').toHaveLength(1);
    expect(await callbackStatuses(t, handle)).toEqual(['QUEUED', 'ERROR']);
  });
});

describe('courier: resume and stop', () => {
  it('resume() hands over every message accepted but never handed over, past the first batch', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const handles: string[] = [];
    for (let i = 0; i < 620; i += 1) handles.push((await send(t, account, { content: `m${i}` })).message_handle);
    const transport = fakeTransport();
    const courier = startCourier(t, transport, { subscribe: false, concurrency: 16 });
    await courier.resume();
    await transport.waitForCalls(handles.length);
    await courier.idle();
    const sent = transport.calls.map((call) => call.handle);
    expect(sent.length, 'each exactly once').toBe(handles.length);
    expect(new Set(sent)).toEqual(new Set(handles));
    expect(await t.store.messages.awaitingHandover(10)).toEqual([]);
  });

  it('resume() tries each waiting message once while the transport is down, beyond the first batch', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const handles: string[] = [];
    for (let i = 0; i < 620; i += 1) handles.push((await send(t, account, { content: `m${i}` })).message_handle);
    let courier: Courier | undefined;
    let triedAgain: () => void = () => {};
    const triedTwice = new Promise<void>((resolve) => (triedAgain = resolve));
    const tried = new Set<string>();
    const transport = fakeTransport(async (message) => {
      // A message tried twice is the failure this test looks for: stop there rather than loop.
      if (tried.has(message.handle)) {
        triedAgain();
        void courier?.stop();
      }
      tried.add(message.handle);
      throw new Error('upstream down');
    });
    // Retries far off: within this test each message gets exactly its first attempt.
    courier = startCourier(t, transport, { subscribe: false, concurrency: 16, retryDelaysMs: [3_600_000] });
    await courier.resume();
    await Promise.race([transport.waitForCalls(handles.length), triedTwice]);
    await courier.idle();
    const tries = new Map<string, number>();
    for (const call of transport.calls) tries.set(call.handle, (tries.get(call.handle) ?? 0) + 1);
    const repeated = [...tries].filter(([, count]) => count > 1);
    expect(repeated.length, `messages tried more than once: ${show(repeated.slice(0, 5))}`).toBe(0);
    expect(tries.size, 'every waiting message tried').toBe(handles.length);
  });

  it('stop() waits for the hand-over in flight and leaves unfinished messages to the next start', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    let fail: (error: Error) => void = () => {};
    const stuck = fakeTransport(() => new Promise((_, reject) => (fail = reject)));
    const courier = startCourier(t, stuck, { concurrency: 1 });
    const handles: string[] = [];
    for (const number of [ALICE, BOB, CAROL]) handles.push((await send(t, account, { number })).message_handle);
    await stuck.waitForCalls(1);

    const stopped = courier.stop();
    fail(new Error('connection reset'));
    await stopped;
    expect(stuck.calls).toHaveLength(1);
    for (const handle of handles) {
      const message = await messageOf(t, handle);
      expect([message.status, message.handedOverAt], show(message)).toEqual(['QUEUED', null]);
    }

    // The next process: a fresh courier finds all three in the database.
    const healthy = fakeTransport();
    const next = startCourier(t, healthy, { subscribe: false });
    await next.resume();
    await healthy.waitForCalls(3);
    await next.idle();
    expect(new Set(healthy.calls.map((call) => call.handle))).toEqual(new Set(handles));
    for (const handle of handles) expect((await messageOf(t, handle)).transportHandle).toBe(`t-${handle}`);
  });

  it('stop() cancels pending retries; the message stays waiting, not failed', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const transport = fakeTransport(async () => {
      throw new Error('upstream down');
    });
    const courier = startCourier(t, transport, { retryDelaysMs: [3_600_000] });
    const handle = (await send(t, account)).message_handle;
    await transport.waitForCalls(1);
    await courier.idle();
    await courier.stop();
    const message = await messageOf(t, handle);
    expect([message.status, message.handedOverAt]).toEqual(['QUEUED', null]);
    expect((await t.store.messages.awaitingHandover(10)).map((row) => row.handle)).toEqual([handle]);
  });
});

/** Sends that hang until `release()`, and the most hand-overs each account had in flight at once. */
function gate() {
  let open: () => void = () => {};
  const opened = new Promise<void>((resolve) => (open = resolve));
  const inFlight = new Map<string, number>();
  const most = new Map<string, number>();
  return {
    most,
    release: () => open(),
    async hold(message: OutboundMessage): Promise<HandoverReceipt> {
      const now = (inFlight.get(message.accountId) ?? 0) + 1;
      inFlight.set(message.accountId, now);
      most.set(message.accountId, Math.max(now, most.get(message.accountId) ?? 0));
      await opened;
      inFlight.set(message.accountId, inFlight.get(message.accountId)! - 1);
      return { transportHandle: `t-${message.handle}` };
    },
  };
}

describe('courier: fair shares', () => {
  it('another account’s hand-over starts while one account’s backlog waits, and no account holds more than its share', async () => {
    const t = makeTestApp();
    const flood = await t.createAccount();
    const victim = await t.createAccount();
    const floodId = (await t.store.accounts.findByServiceNumber(flood.numbers[0]!))!.id;
    const held = gate();
    const transport = fakeTransport((message) => (message.accountId === floodId ? held.hold(message) : accept(message, 0)));
    const courier = startCourier(t, transport, { concurrency: 8, perAccount: 2 });
    for (let i = 0; i < 200; i += 1) await send(t, flood, { content: `flood ${i}` });
    await transport.waitForCalls(2);

    const victimHandle = (await send(t, victim, { content: 'me too' })).message_handle;
    await until(() => transport.calls.some((call) => call.handle === victimHandle));
    expect(transport.calls.length, 'the flood’s two in flight, then the victim').toBe(3);
    expect((await messageOf(t, victimHandle)).transportHandle).toBe(`t-${victimHandle}`);

    held.release();
    await transport.waitForCalls(201);
    await courier.idle();
    expect(held.most.get(floodId), 'the flood never held more than its share').toBe(2);
    expect(await t.store.messages.awaitingHandover(10)).toEqual([]);
  });

  it('a stuck carrier holds back no hand-over on another carrier, not even of the same account', async () => {
    const t = makeTestApp();
    const account = await t.createAccount({ numbers: 2 });
    const [slowLine, fastLine] = account.numbers as [string, string];
    const held = gate();
    const transport = fakeTransport(
      (message) => (message.lineNumber === slowLine ? held.hold(message) : accept(message, 0)),
      async (lineNumber) => (lineNumber === slowLine ? 'slow' : 'fast'),
    );
    const courier = startCourier(t, transport, { concurrency: 4, perAccount: 4 });
    for (let i = 0; i < 50; i += 1) await send(t, account, { content: `slow ${i}`, fromNumber: slowLine });
    await transport.waitForCalls(4);

    const fast = (await send(t, account, { content: 'fast', fromNumber: fastLine })).message_handle;
    await until(() => transport.calls.some((call) => call.handle === fast));
    expect(transport.calls.filter((call) => call.lineNumber === slowLine).length, 'every slow slot still held').toBe(4);

    held.release();
    await transport.waitForCalls(51);
    await courier.idle();
  });

  it('takes accounts in turn, each account’s messages in the order sent', async () => {
    const t = makeTestApp();
    const a = await t.createAccount();
    const b = await t.createAccount();
    const held = gate();
    const transport = fakeTransport((message, call) => (call === 1 ? held.hold(message) : accept(message, call)));
    const courier = startCourier(t, transport, { concurrency: 1, perAccount: 1 });
    await send(t, a, { content: 'a0' });
    await transport.waitForCalls(1);
    for (const content of ['a1', 'a2', 'a3', 'a4']) await send(t, a, { content });
    for (const content of ['b1', 'b2', 'b3']) await send(t, b, { content });
    held.release();
    await transport.waitForCalls(8);
    await courier.idle();
    expect(transport.calls.map((call) => call.content)).toEqual(['a0', 'b1', 'a1', 'b2', 'a2', 'b3', 'a3', 'a4']);
  });

  it('a retry keeps working per message and goes before its account’s later messages', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const transport = fakeTransport(async (message, call) => {
      if (call === 1) throw new Error('503 from upstream');
      return accept(message, call);
    });
    const courier = startCourier(t, transport, { concurrency: 1, perAccount: 1, retryDelaysMs: [30] });
    const first = (await send(t, account, { content: 'first' })).message_handle;
    await transport.waitForCalls(1);
    await send(t, account, { content: 'second' });
    await transport.waitForCalls(3);
    await courier.idle();
    expect(transport.calls.map((call) => call.content)).toEqual(['first', 'second', 'first']);
    expect((await messageOf(t, first)).transportHandle).toBe(`t-${first}`);
  });

  it('resume() reads each account apart: another account’s waiting messages go behind no backlog', async () => {
    const t = makeTestApp();
    const flood = await t.createAccount();
    const victim = await t.createAccount();
    const floodHandles: string[] = [];
    for (let i = 0; i < 620; i += 1) floodHandles.push((await send(t, flood, { content: `flood ${i}` })).message_handle);
    const victimHandles: string[] = [];
    // To one person, so on one line: a resume keeps each line's order.
    for (const content of ['one', 'two', 'three']) victimHandles.push((await send(t, victim, { content })).message_handle);
    const transport = fakeTransport(async (message) => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      return accept(message, 0);
    });
    const courier = startCourier(t, transport, { subscribe: false, concurrency: 4, perAccount: 2 });
    await courier.resume();
    await transport.waitForCalls(623);
    await courier.idle();

    const order = transport.calls.map((call) => call.handle);
    const victimTurns = victimHandles.map((handle) => order.indexOf(handle));
    expect(Math.max(...victimTurns), `the victim’s hand-overs came at ${victimTurns}`).toBeLessThan(10);
    expect(victimTurns, 'in the order sent').toEqual([...victimTurns].sort((x, y) => x - y));
    expect(
      order.filter((handle) => floodHandles.includes(handle)),
      'the flood in the order sent, each once',
    ).toEqual(floodHandles);
    expect(await t.store.messages.awaitingHandover(10)).toEqual([]);
  });
  it('resume() finds a backlog also when its account sent again before the resume looked', async () => {
    const t = makeTestApp();
    const account = await t.createAccount();
    const left: string[] = [];
    for (const content of ['left 1', 'left 2', 'left 3']) left.push((await send(t, account, { content })).message_handle);
    const transport = fakeTransport();
    const courier = startCourier(t, transport);
    // The server answers before its background work has resumed: a new send is queued first.
    const fresh = (await send(t, account, { content: 'fresh' })).message_handle;
    await courier.resume();
    await transport.waitForCalls(4);
    await courier.idle();
    expect(new Set(transport.calls.map((call) => call.handle))).toEqual(new Set([...left, fresh]));
    expect(transport.calls).toHaveLength(4);
  });
});
