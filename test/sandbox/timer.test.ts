import { afterEach, describe, expect, it, vi } from 'vitest';
import { CALLBACK_URL } from '../helpers/delivery.ts';
import { callbackStatuses } from '../helpers/outbox.ts';
import { makeSandboxApp, STEP_MS } from './harness.ts';

// The production path: once started, the transport's own timer runs the steps. Timers are faked
// (setTimeout only: the courier's setImmediate stays real) and moved together with the clock.

afterEach(() => {
  vi.useRealTimers();
});

describe('a started sandbox arms one timer for its earliest step', () => {
  it('runs each step when its time comes, re-arming after each, and leaves no timer once stopped', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const t = makeSandboxApp();
    t.transport.start();
    expect(vi.getTimerCount()).toBe(0);

    const account = await t.createAccount();
    const sent = await t.sendVia('/api/send-message', account, { number: '+12125558899', content: 'x', status_callback: CALLBACK_URL });
    expect(vi.getTimerCount()).toBe(1);

    /** Both clocks move together, as they do in production. */
    const advance = async (ms: number) => {
      t.clock.advance(ms);
      await vi.advanceTimersByTimeAsync(ms);
    };
    await advance(STEP_MS - 1);
    expect(await callbackStatuses(t, sent.message_handle)).toEqual(['QUEUED']);
    await advance(1);
    expect(await callbackStatuses(t, sent.message_handle)).toEqual(['QUEUED', 'SENT']);
    expect(vi.getTimerCount()).toBe(1);
    await advance(STEP_MS);
    await advance(STEP_MS);
    expect(await callbackStatuses(t, sent.message_handle)).toEqual(['QUEUED', 'SENT', 'DELIVERED', 'READ']);
    // Nothing planned: no timer waits.
    expect(vi.getTimerCount()).toBe(0);

    await t.sendVia('/api/send-message', account, { number: '+12125558899', content: 'y' });
    expect(vi.getTimerCount()).toBe(1);
    await t.transport.stop();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('arms for a send from what its commit planned, without looking for the earliest step', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const t = makeSandboxApp();
    const looks = vi.spyOn(t.deps.store.sandbox, 'earliestDueAt');
    t.transport.start();
    const account = await t.createAccount();
    await vi.advanceTimersByTimeAsync(0);
    const atStart = looks.mock.calls.length;

    /** Both clocks move together, as they do in production. */
    const advance = async (ms: number) => {
      t.clock.advance(ms);
      await vi.advanceTimersByTimeAsync(ms);
    };
    const first = await t.sendVia('/api/send-message', account, { number: '+12125558899', content: 'x', status_callback: CALLBACK_URL });
    await advance(STEP_MS / 2);
    const second = await t.sendVia('/api/send-message', account, { number: '+12125558898', content: 'y', status_callback: CALLBACK_URL });
    expect(looks.mock.calls.length).toBe(atStart);
    expect(vi.getTimerCount()).toBe(1);

    await advance(STEP_MS / 2);
    expect(await callbackStatuses(t, first.message_handle)).toEqual(['QUEUED', 'SENT']);
    expect(await callbackStatuses(t, second.message_handle)).toEqual(['QUEUED']);
    await advance(STEP_MS / 2);
    expect(await callbackStatuses(t, second.message_handle)).toEqual(['QUEUED', 'SENT']);
  });

  it('an unstarted transport (as in tests) arms nothing', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const t = makeSandboxApp();
    await t.sendVia('/api/send-message', await t.createAccount(), { number: '+12125558899', content: 'x' });
    expect(vi.getTimerCount()).toBe(0);
  });
});
