import { describe, expect, it } from 'vitest';
import type { MessageRow } from '../../src/db/rows.ts';
import { leaveToCourier, type TransportAtSend } from '../../src/services/deps.ts';
import { messagesAwaitingHandover } from '../../src/services/handover.ts';
import { makeTestApp } from '../helpers/app.ts';
import { expectAccepted } from '../helpers/expect.ts';
import { rowCounts } from '../helpers/row-counts.ts';

/** The transport's part in a send (ServiceDeps.transportAtSend): asked in the send's transaction, told after its commit. */

const SEND = { number: '+12125558899', content: 'hi' };

/** A transport that takes each message as it is stored, under its own handle, and notes what it was told. */
function takingTransport() {
  const stored: MessageRow[] = [];
  const committed: string[] = [];
  const atSend: TransportAtSend = {
    handleAtSend: (handle) => `theirs-${handle}`,
    stored: async (_deps, message) => {
      stored.push(message);
    },
    committed: (_deps, handle) => void committed.push(handle),
  };
  return { atSend, stored, committed };
}

describe('the transport at send', () => {
  it('a transport that takes the message in the transaction has it stored handed over, and hears of it after the commit', async () => {
    const transport = takingTransport();
    const t = makeTestApp({ transportAtSend: transport.atSend });
    const queued: string[] = [];
    t.notifier.subscribe({ messageQueued: (handle) => queued.push(handle) });
    const account = await t.createAccount();

    const reply = await t.call('POST', '/api/send-message', account, SEND);
    expectAccepted(reply);
    const handle = reply.body.message_handle as string;

    expect(await t.store.messages.findByAnyHandle(handle)).toMatchObject({
      status: 'QUEUED',
      transportHandle: `theirs-${handle}`,
      handedOverAt: t.clock.now(),
    });
    expect(transport.stored.map((message) => message.transportHandle)).toEqual([`theirs-${handle}`]);
    expect(transport.committed).toEqual([handle]);
    expect((await messagesAwaitingHandover(t.deps, 10)).messages).toEqual([]);
    expect(queued).toEqual([]);
  });

  it('what it does in the transaction rolls back with the send, and it hears of no commit', async () => {
    const committed: string[] = [];
    const t = makeTestApp({
      transportAtSend: {
        handleAtSend: () => undefined,
        stored: () => {
          throw new Error('the transport could not plan the message');
        },
        committed: (_deps, handle) => void committed.push(handle),
      },
    });
    const account = await t.createAccount();
    const before = await rowCounts(t);

    const reply = await t.call('POST', '/api/send-group-message', account, {
      numbers: ['+12125550101', '+12125558899'],
      content: 'hello group',
    });

    expect(reply.status).toBe(500);
    expect(await rowCounts(t)).toEqual(before);
    expect(committed).toEqual([]);
  });

  it('leaveToCourier leaves the message waiting and tells the courier after the commit', async () => {
    const t = makeTestApp({ transportAtSend: leaveToCourier });
    const queued: string[] = [];
    t.notifier.subscribe({ messageQueued: (handle) => queued.push(handle) });
    const account = await t.createAccount();

    const reply = await t.call('POST', '/api/send-message', account, SEND);
    expectAccepted(reply);
    const handle = reply.body.message_handle as string;

    expect(await t.store.messages.findByAnyHandle(handle)).toMatchObject({ status: 'QUEUED', transportHandle: null, handedOverAt: null });
    expect((await messagesAwaitingHandover(t.deps, 10)).messages.map((message) => message.handle)).toEqual([handle]);
    expect(queued).toEqual([handle]);
  });
});
