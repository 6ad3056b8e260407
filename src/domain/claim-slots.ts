/**
 * The dispatcher's posting slots: how many posts are in flight overall, per destination host, per
 * account, and per account on each host (its host share). A callback takes a slot on all four, so
 * one slow receiver, or one account's backlog, holds at most its share of the slots and never all
 * of them.
 *
 * A host's slots are shared between the accounts with posts in flight there: each may hold an
 * equal part of them, less the newcomer slots, which only an account with no post in flight there
 * may take. So another account's first callback to a host finds a slot at once however many one
 * account has queued, and a lone account still gets all but the newcomer slots.
 */
import { remembering } from './remembering.ts';

export type ClaimLimits = {
  /** Posts in flight at once, overall. */
  concurrency: number;
  /** Posts in flight at once per destination host, so one slow receiver cannot take every slot. */
  perHostLimit: number;
  /** Posts in flight at once per account, so one account's backlog cannot take every slot. */
  perAccountLimit: number;
  /** A host's slots kept for accounts with no post in flight there; by default newcomerSlotsOf(perHostLimit). */
  newcomerSlots?: number;
};

/** An eighth of a host's slots, rounded up, but never all of them: 8 of 64. */
export function newcomerSlotsOf(perHostLimit: number): number {
  return Math.min(Math.ceil(perHostLimit / 8), perHostLimit - 1);
}

/** What a callback holds slots on: the host of its URL and its account. */
export type SlotHolder = { url: string; accountId: string };

/** A host's, an account's or a host share's name among the slots: `host <host>`, `account <id>` or `share <host> <id>`. */
export type SlotKey = string;

const ACCOUNT = 'account ';
const SHARE = 'share ';

/** Claims look at every callback's host: a batch's callbacks mostly share a few URLs, so parse each once. */
const hostOf = remembering((url: string) => new URL(url).host, 1_000);

/**
 * The URL as written up to where its path starts (scheme, host and port): what the database can
 * compare, in SQL, to leave out an account's callbacks to a host whose share it holds.
 */
export function urlBeforePath(url: string): string {
  const end = url.indexOf('/', url.indexOf('//') + 2);
  return end === -1 ? url : url.slice(0, end);
}

/** The keys a callback holds a slot on: its host, its account and its account's share of that host. */
export function slotKeysOf(row: SlotHolder): [SlotKey, SlotKey, SlotKey] {
  const host = hostOf(row.url);
  return [`host ${host}`, `${ACCOUNT}${row.accountId}`, `${SHARE}${host} ${row.accountId}`];
}

/** The account a key leaves out of reads when full: an account's own key or its share of a host; undefined for a host's key. */
export function accountOfKey(key: SlotKey): string | undefined {
  if (key.startsWith(ACCOUNT)) return key.slice(ACCOUNT.length);
  if (key.startsWith(SHARE)) return key.slice(key.indexOf(' ', SHARE.length) + 1);
  return undefined;
}

/** Whether a key is an account's share of one host (the rest of its callbacks are not left out with it). */
export function isShareKey(key: SlotKey): boolean {
  return key.startsWith(SHARE);
}

/** The key of the host a share key is a share of. */
export function hostKeyOfShare(share: SlotKey): SlotKey {
  return `host ${share.slice(SHARE.length, share.indexOf(' ', SHARE.length))}`;
}

type TallyState = {
  load: Map<SlotKey, number>;
  /** Per host key, how many accounts have posts in flight there. */
  holders: Map<SlotKey, number>;
  /** Per share key, the URLs (up to the path) of its posts in flight. */
  urls: Map<SlotKey, Map<string, number>>;
  posting: number;
};

function emptyState(): TallyState {
  return { load: new Map(), holders: new Map(), urls: new Map(), posting: 0 };
}

/** Adds `by` to a count, dropping it at zero; returns the new count. */
function count(map: Map<string, number>, key: string, by: number): number {
  const next = (map.get(key) ?? 0) + by;
  if (next === 0) map.delete(key);
  else map.set(key, next);
  return next;
}

/** Posts counted per key, and what each key may still take. */
function tallyOf(limits: ClaimLimits, state: TallyState) {
  const newcomerSlots = limits.newcomerSlots ?? newcomerSlotsOf(limits.perHostLimit);
  const { load, holders, urls } = state;
  const loadOf = (key: SlotKey) => load.get(key) ?? 0;

  function change(row: SlotHolder, by: 1 | -1): void {
    const [host, account, share] = slotKeysOf(row);
    count(load, host, by);
    count(load, account, by);
    const held = count(load, share, by);
    // A share holds its host from its first post in flight to its last.
    if ((by === 1 && held === 1) || (by === -1 && held === 0)) count(holders, host, by);
    const shareUrls = urls.get(share) ?? new Map<string, number>();
    count(shareUrls, urlBeforePath(row.url), by);
    if (shareUrls.size === 0) urls.delete(share);
    else urls.set(share, shareUrls);
    state.posting += by;
  }

  function hasRoom(key: SlotKey): boolean {
    if (key.startsWith(ACCOUNT)) return loadOf(key) < limits.perAccountLimit;
    if (!key.startsWith(SHARE)) return loadOf(key) < limits.perHostLimit;
    const host = hostKeyOfShare(key);
    const held = loadOf(key);
    // A newcomer may take any free slot of the host; those with posts there share the rest equally.
    if (held === 0) return loadOf(host) < limits.perHostLimit;
    const shared = limits.perHostLimit - newcomerSlots;
    return loadOf(host) < shared && held < Math.max(1, Math.floor(shared / (holders.get(host) ?? 1)));
  }

  return {
    loadOf,
    hasRoom,

    /** How many more posts a key may take, at most (each one taken may lower what the others may). */
    roomOf(key: SlotKey): number {
      if (!hasRoom(key)) return 0;
      return (key.startsWith(ACCOUNT) ? limits.perAccountLimit : limits.perHostLimit) - loadOf(key);
    },

    /** The keys holding posts now. */
    keys(): IterableIterator<SlotKey> {
      return load.keys();
    },

    /** The URLs (up to the path) of a share's posts in flight. */
    urlsOf(share: SlotKey): Iterable<string> {
      return urls.get(share)?.keys() ?? [];
    },

    started(row: SlotHolder): void {
      change(row, 1);
    },

    ended(row: SlotHolder): void {
      change(row, -1);
    },

    /** Slots left for new posts overall. */
    free(): number {
      return limits.concurrency - state.posting;
    },
  };
}

export type Tally = ReturnType<typeof tallyOf>;

export function createSlots(limits: ClaimLimits) {
  const state = emptyState();
  return {
    ...tallyOf(limits, state),

    /** A copy a claim plans on: what it takes counts against the limits, the posts in flight stay as they are. */
    draft(): Tally {
      const urls = new Map([...state.urls].map(([key, value]) => [key, new Map(value)]));
      return tallyOf(limits, { load: new Map(state.load), holders: new Map(state.holders), urls, posting: state.posting });
    },
  };
}

export type Slots = ReturnType<typeof createSlots>;
