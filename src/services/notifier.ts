import type { Notifier } from './deps.ts';

/** A live view of one account: told of each activity, and told to end when the process stops. */
export type AccountWatcher = { activity(): void; end(): void };

/** What another instance on the same database reported (services/notifier-bridge.ts). */
export type HeardEvents = { outboxWritten: boolean; accounts: readonly string[]; accountDataChanged?: boolean };

/** Told of this process's own events, to pass them on to other instances. */
export type EventForwarder = Pick<Notifier, 'outboxWritten'> & { accountActivity(accountId: string): void; accountDataChanged(): void };

/** Hears what the hub hears (its own process's and other instances' alike). */
type HubListener = Partial<Notifier> & {
  /** Per-account data the account cache keeps changed (accounts, lines, webhook lists): what is kept is stale. */
  accountDataChanged?(): void;
};

/**
 * A Notifier whose listeners are attached after the services are built: the courier and the
 * dispatcher need the services' deps themselves, so they can only subscribe once those exist.
 * Live views (the inbox's event streams) watch one account each and come and go.
 */
export function createNotifierHub() {
  const listeners: HubListener[] = [];
  const watchers = new Map<string, Set<AccountWatcher>>();
  const forwarders: EventForwarder[] = [];
  let ended = false;
  function tellWatchers(accountId: string): void {
    const watching = watchers.get(accountId);
    if (watching) for (const watcher of watching) watcher.activity();
  }
  const hub: Notifier & {
    accountActivity(accountId: string): void;
    /** This process committed a change of per-account data the account cache keeps. */
    accountDataChanged(): void;
    subscribe(listener: HubListener): void;
    /** `forwarder` is told of this process's outbox writes and account activity, never of what was heard. */
    forwardTo(forwarder: EventForwarder): void;
    /** Events of another instance: the local listeners and watchers hear them, the forwarders do not. */
    heard(events: HeardEvents): void;
    /** The accounts some live view watches now (to refresh after notifications may have been missed). */
    watchedAccounts(): string[];
    /** Tells `watcher` of each activity of the account until the returned function is called. */
    watchAccount(accountId: string, watcher: AccountWatcher): () => void;
    /** Shutdown: ends every watcher (and refuses new ones), so open event streams let the server close. */
    endWatchers(): void;
  } = {
    messageQueued(handle, sender) {
      for (const listener of listeners) listener.messageQueued?.(handle, sender);
    },
    outboxWritten() {
      for (const listener of listeners) listener.outboxWritten?.();
      for (const forwarder of forwarders) forwarder.outboxWritten();
    },
    // Not carried to other instances: the one that planned the steps runs them (the others poll for a dead one's).
    sandboxPlanned(dueAt) {
      for (const listener of listeners) listener.sandboxPlanned?.(dueAt);
    },
    accountActivity(accountId) {
      tellWatchers(accountId);
      for (const forwarder of forwarders) forwarder.accountActivity(accountId);
    },
    accountDataChanged() {
      for (const listener of listeners) listener.accountDataChanged?.();
      for (const forwarder of forwarders) forwarder.accountDataChanged();
    },
    subscribe(listener) {
      listeners.push(listener);
    },
    forwardTo(forwarder) {
      forwarders.push(forwarder);
    },
    heard(events) {
      if (events.outboxWritten) for (const listener of listeners) listener.outboxWritten?.();
      if (events.accountDataChanged) for (const listener of listeners) listener.accountDataChanged?.();
      for (const accountId of events.accounts) tellWatchers(accountId);
    },
    watchedAccounts() {
      return [...watchers.keys()];
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
