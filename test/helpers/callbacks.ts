import { expect } from 'vitest';
import type { Receiver } from '../callbacks/receiver.ts';

/**
 * Each message's callbacks reached the receiver in `statuses` order, each status under one
 * webhook-id however often it was attempted.
 */
export function expectCallbacksOnce(receiver: Receiver, handles: readonly string[], statuses: readonly string[]): void {
  for (const handle of handles) {
    const callbacks = receiver.received.filter((request) => request.json?.message_handle === handle);
    const ids = new Map<string, Set<string>>();
    for (const callback of callbacks) {
      ids.set(callback.json.status, (ids.get(callback.json.status) ?? new Set()).add(String(callback.headers['webhook-id'])));
    }
    const context = JSON.stringify(callbacks.map((callback) => [callback.json.status, callback.headers['webhook-id']]));
    expect([...ids.keys()], context).toEqual(statuses);
    for (const set of ids.values()) expect(set.size, context).toBe(1);
  }
}
