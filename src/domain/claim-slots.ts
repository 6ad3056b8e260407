/**
 * The dispatcher's posting slots: how many posts are in flight overall, per destination host and
 * per account. A callback takes a slot on its host and on its account, so one slow receiver, or
 * one account's backlog, holds at most its share of the slots and never all of them.
 */
import { remembering } from './remembering.ts';

export type ClaimLimits = {
  /** Posts in flight at once, overall. */
  concurrency: number;
  /** Posts in flight at once per destination host, so one slow receiver cannot take every slot. */
  perHostLimit: number;
  /** Posts in flight at once per account, so one account's backlog cannot take every slot. */
  perAccountLimit: number;
};

/** What a callback holds slots on: the host of its URL and its account. */
export type SlotHolder = { url: string; accountId: string };

/** A host's or an account's name among the slots: `host <host>` or `account <id>`. */
export type SlotKey = string;

const ACCOUNT = 'account ';

/** Claims look at every callback's host: a batch's callbacks mostly share a few URLs, so parse each once. */
const hostOf = remembering((url: string) => new URL(url).host, 1_000);

export function slotKeysOf(row: SlotHolder): [SlotKey, SlotKey] {
  return [`host ${hostOf(row.url)}`, `${ACCOUNT}${row.accountId}`];
}

/** The account a key names, or undefined for a host's key. */
export function accountOfKey(key: SlotKey): string | undefined {
  return key.startsWith(ACCOUNT) ? key.slice(ACCOUNT.length) : undefined;
}

export function createSlots(limits: ClaimLimits) {
  const load = new Map<SlotKey, number>();
  let posting = 0;
  return {
    limitOf(key: SlotKey): number {
      return accountOfKey(key) === undefined ? limits.perHostLimit : limits.perAccountLimit;
    },

    loadOf(key: SlotKey): number {
      return load.get(key) ?? 0;
    },

    /** The keys holding posts now. */
    keys(): IterableIterator<SlotKey> {
      return load.keys();
    },

    started(row: SlotHolder): void {
      for (const key of slotKeysOf(row)) load.set(key, (load.get(key) ?? 0) + 1);
      posting += 1;
    },

    ended(row: SlotHolder): void {
      for (const key of slotKeysOf(row)) {
        const left = (load.get(key) ?? 1) - 1;
        if (left === 0) load.delete(key);
        else load.set(key, left);
      }
      posting -= 1;
    },

    /** Slots left for new posts overall. */
    free(): number {
      return limits.concurrency - posting;
    },
  };
}

export type Slots = ReturnType<typeof createSlots>;
