import { expect } from 'vitest';
import type { Db } from '../../src/db/connection.ts';
import type { Receiver } from '../webhooks/receiver.ts';

/**
 * Ways to stop the live connection's writes and to let them through again. Tests run as root, for
 * whom chmod does not make a file read-only, so the faults are made in SQLite itself: the errors
 * the service sees are the ones a full disk (SQLITE_FULL) or a read-only file (SQLITE_READONLY)
 * raise.
 */
export type StorageFault = {
  name: string;
  break: (db: Db) => void;
  heal: (db: Db) => void;
  /** Every write fails at once (a full disk still takes writes that fit in free pages). */
  refusesEveryWrite: boolean;
};

export const STORAGE_FAULTS: StorageFault[] = [
  {
    name: 'a full disk',
    break(db) {
      // No free pages left inside the file, and the file may not grow.
      db.$client.exec('VACUUM');
      const pages = db.$client.pragma('page_count', { simple: true }) as number;
      db.$client.pragma(`max_page_count = ${pages}`);
    },
    heal(db) {
      db.$client.pragma('max_page_count = 4294967294');
    },
    refusesEveryWrite: false,
  },
  {
    name: 'a read-only database',
    break(db) {
      db.$client.pragma('query_only = ON');
    },
    heal(db) {
      db.$client.pragma('query_only = OFF');
    },
    refusesEveryWrite: true,
  },
];

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
