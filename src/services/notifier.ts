import type { Notifier } from './deps.ts';

/** A live view of one account: told of each activity, and told to end when the process stops. */
export type AccountWatcher = { activity(): void; end(): void };

/**
 * A Notifier whose listeners are attached after the services are built: the courier and the
 * dispatcher need the services' deps themselves, so they can only subscribe once those exist.
 * Live views (the inbox's event streams) watch one account each and come and go.
 */
export function createNotifierHub() {
  const listeners: Partial<Notifier>[] = [];
  const watchers = new Map<string, Set<AccountWatcher>>();
  let ended = false;
  const hub: Notifier & {
    accountActivity(accountId: string): void;
    subscribe(listener: Partial<Notifier>): void;
    /** Tells `watcher` of each activity of the account until the returned function is called. */
    watchAccount(accountId: string, watcher: AccountWatcher): () => void;
    /** Shutdown: ends every watcher (and refuses new ones), so open event streams let the server close. */
    endWatchers(): void;
  } = {
    messageQueued(handle) {
      for (const listener of listeners) listener.messageQueued?.(handle);
    },
    outboxWritten() {
      for (const listener of listeners) listener.outboxWritten?.();
    },
    accountActivity(accountId) {
      const watching = watchers.get(accountId);
      if (watching) for (const watcher of watching) watcher.activity();
    },
    subscribe(listener) {
      listeners.push(listener);
    },
    watchAccount(accountId, watcher) {
      if (ended) {
        watcher.end();
        return () => {};
      }
      const watching = watchers.get(accountId) ?? new Set<AccountWatcher>();
      watchers.set(accountId, watching.add(watcher));
      return () => {
        watching.delete(watcher);
        if (watching.size === 0 && watchers.get(accountId) === watching) watchers.delete(accountId);
      };
    },
    endWatchers() {
      ended = true;
      const all = [...watchers.values()].flatMap((watching) => [...watching]);
      watchers.clear();
      for (const watcher of all) watcher.end();
    },
  };
  return hub;
}

export type NotifierHub = ReturnType<typeof createNotifierHub>;
