import { describe, expect, it } from 'vitest';
import { messagesAwaitingHandover } from '../../src/services/handover.ts';
import { expectAccepted } from '../helpers/expect.ts';
import { callbackStatuses } from '../helpers/outbox.ts';
import { makeSandboxApp, plannedStepCount } from './harness.ts';

describe('sends to the sandbox are handed over as they are stored', () => {
  it('the 202 finds the timeline planned and the message handed over, with no courier round', async () => {
    const t = makeSandboxApp();
    const queued: string[] = [];
    t.notifier.subscribe({ messageQueued: (handle) => queued.push(handle) });
    const account = await t.createAccount();

    const reply = await t.call('POST', '/api/send-message', account, {
      number: '+12125558899',
      content: 'hi',
      status_callback: 'http://127.0.0.1:9/cb',
    });
    expectAccepted(reply);
    const handle = reply.body.message_handle as string;

    expect(await plannedStepCount(t)).toBe(3);
    expect(await t.store.messages.findByAnyHandle(handle)).toMatchObject({
      status: 'QUEUED',
      transportHandle: handle,
      handedOverAt: t.clock.now(),
    });
    expect((await messagesAwaitingHandover(t.deps, 10)).messages).toEqual([]);
    expect(queued).toEqual([]);

    await t.steps(3);
    expect(await callbackStatuses(t, handle)).toEqual(['QUEUED', 'SENT', 'DELIVERED', 'READ']);
  });

  it('a group send is planned as it is stored too, and its idempotent replay plans nothing more', async () => {
    const t = makeSandboxApp();
    const account = await t.createAccount();
    const body = { numbers: ['+12125550101', '+12125558899'], content: 'hello group' };
    const headers = { 'idempotency-key': 'group-once' };
    const first = await t.call('POST', '/api/send-group-message', account, body, headers);
    expectAccepted(first);
    const planned = await plannedStepCount(t);
    expect(planned).toBeGreaterThan(0);
    expect((await messagesAwaitingHandover(t.deps, 10)).messages).toEqual([]);

    const again = await t.call('POST', '/api/send-group-message', account, body, headers);
    expectAccepted(again);
    expect(again.body.message_handle).toBe(first.body.message_handle);
    expect(await plannedStepCount(t)).toBe(planned);
  });

  it('a refused send plans nothing', async () => {
    const t = makeSandboxApp();
    const account = await t.createAccount();
    const reply = await t.call('POST', '/api/send-message', account, { number: '911', content: 'hi' });
    expect(reply.status).toBe(400);
    expect(await plannedStepCount(t)).toBe(0);
  });
});
