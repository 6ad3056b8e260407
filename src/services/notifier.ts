import type { Notifier } from './deps.ts';

/**
 * A Notifier whose listeners are attached after the services are built: the courier and the
 * dispatcher need the services' deps themselves, so they can only subscribe once those exist.
 */
export function createNotifierHub() {
  const listeners: Partial<Notifier>[] = [];
  const hub: Notifier & { subscribe(listener: Partial<Notifier>): void } = {
    messageQueued(handle) {
      for (const listener of listeners) listener.messageQueued?.(handle);
    },
    outboxWritten() {
      for (const listener of listeners) listener.outboxWritten?.();
    },
    subscribe(listener) {
      listeners.push(listener);
    },
  };
  return hub;
}

export type NotifierHub = ReturnType<typeof createNotifierHub>;
