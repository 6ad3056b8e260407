/**
 * Which webhook callbacks the dispatcher claims. Pure: the database hands in candidate rows and
 * applies the choices made here.
 *
 * A message's callbacks to one URL go out in order: the database keeps the next one waiting
 * (not due) until the one before it is delivered or given up, and then hands it in here first, so
 * it can take the slot the finished one left. Then come due callbacks, oldest due first, each
 * taken while there is a free slot overall, on its destination host, on its account and in its
 * account's share of that host (claim-slots.ts). The database leaves out the due callbacks of
 * accounts already full, and an account's callbacks to a host whose share it holds, so another
 * account's callback is found at once behind any backlog of theirs.
 */
import { anyHasRoom, createReadPasses, type QueuePlace, type ReadEnd, type ReadStart } from './claim-reads.ts';
import {
  accountOfKey,
  type ClaimLimits,
  createSlots,
  hostKeyOfShare,
  isShareKey,
  type SlotHolder,
  type SlotKey,
  slotKeysOf,
  urlBeforePath,
} from './claim-slots.ts';

/** What a read of due callbacks leaves out: whole accounts, and an account's callbacks to the URLs (up to the path) of a host whose share it holds. */
export type LeftOut = {
  accounts: string[];
  shares: { accountId: string; urlBeforePath: string }[];
};

/** Due callbacks a claim may read, per free slot. */
const ROWS_READ_PER_FREE_SLOT = 4;
/** Due callbacks of full hosts or accounts a claim may pass over, looking for others' callbacks. */
const FULL_KEY_ROWS_PER_CLAIM = 64;

export function createCallbackClaims(limits: ClaimLimits) {
  const slots = createSlots(limits);
  const passes = createReadPasses();

  /**
   * One claim, in the order the database asks: first the next callbacks of finished ones, then
   * where to start reading due callbacks, then which accounts to leave out of a read and which of
   * the callbacks read to take.
   */
  function claim() {
    // What this claim takes counts at once: the posts in flight and those it plans.
    const draft = slots.draft();
    const free = draft.free();
    const keyHasRoom = draft.hasRoom;
    const fullKeysOf = (row: SlotHolder) => slotKeysOf(row).filter((key) => !keyHasRoom(key));
    const readLimit = Math.max(free, 1) * ROWS_READ_PER_FREE_SLOT;
    let taken = 0;
    let reading = false;
    let readEnd: [ReadEnd, boolean, ReadonlySet<SlotKey>, QueuePlace | undefined] | undefined;
    // What chooseDue has read so far: it may be offered the due callbacks a page at a time.
    const fullKeys = new Set<SlotKey>();
    /** Per full share, the URLs (up to the path) of its callbacks read: the next page leaves them out too. */
    const sharesRead = new Map<SlotKey, Set<string>>();
    let seen = 0;
    let passedOver = 0;
    let lastSeen: QueuePlace | undefined;
    let wantsMore = true;

    function take(row: SlotHolder): void {
      draft.started(row);
      taken += 1;
    }

    return {
      /** How many due callbacks the database should offer at most. */
      readLimit,

      /**
       * The next callbacks that delivered or given-up ones let go, each to the URL of the one
       * before it: those with a slot start now, the others become due and wait their turn.
       */
      splitNext<T extends SlotHolder>(next: readonly T[]): { startNow: T[]; makeDue: T[] } {
        const startNow: T[] = [];
        const makeDue: T[] = [];
        for (const row of next) {
          if (taken < free && fullKeysOf(row).length === 0) {
            take(row);
            startNow.push(row);
          } else {
            makeDue.push(row);
          }
        }
        // Due now, and possibly behind the place the reads reached.
        if (makeDue.length > 0) passes.callbacksChanged();
        return { startNow, makeDue };
      },

      /** Where to start reading due callbacks ('none': only full hosts and accounts have any). */
      readStart(): ReadStart {
        const start = passes.start(keyHasRoom);
        reading = start !== 'none';
        return start;
      },

      /**
       * What a read should leave out, full now: its callbacks would only be passed over. The keys
       * count as passed over, so a paused read starts again when one of them frees a slot.
       */
      leftOut(): LeftOut {
        const left: LeftOut = { accounts: [], shares: [] };
        for (const key of draft.keys()) {
          const account = accountOfKey(key);
          if (account === undefined || keyHasRoom(key)) continue;
          fullKeys.add(key);
          if (!isShareKey(key)) {
            left.accounts.push(account);
            continue;
          }
          for (const url of new Set([...draft.urlsOf(key), ...(sharesRead.get(key) ?? [])]))
            left.shares.push({ accountId: account, urlBeforePath: url });
        }
        return left;
      },

      /**
       * Takes, from due callbacks offered in due order, those with a free slot on their host and
       * account; reads as few as it can. May be called again with the rows that follow (a page at
       * a time) while `wantsMore()`: it goes on where it stopped.
       */
      chooseDue<T extends QueuePlace & SlotHolder>(due: Iterable<T>): T[] {
        const chosen: T[] = [];
        let end: ReadEnd = 'end of rows';
        for (const row of due) {
          if (taken >= free) {
            end = 'slots full';
            break;
          }
          if (passedOver >= FULL_KEY_ROWS_PER_CLAIM) {
            end = 'pass-over budget spent';
            break;
          }
          seen += 1;
          lastSeen = row;
          const full = fullKeysOf(row);
          if (full.length === 0) {
            take(row);
            chosen.push(row);
            continue;
          }
          for (const key of full) fullKeys.add(key);
          const known = passes.keysWithDueRows();
          if (known && !anyHasRoom(known, keyHasRoom)) {
            end = 'only full keys left';
            break;
          }
          if (full.every((key) => accountOfKey(key) !== undefined)) {
            // Its account, or its share of the host, filled up: the next page is read without them, from here.
            for (const key of full.filter(isShareKey)) sharesRead.set(key, (sharesRead.get(key) ?? new Set()).add(urlBeforePath(row.url)));
            end = 'an account filled up';
            break;
          }
          passedOver += 1;
        }
        const cutShort = end === 'pass-over budget spent' || seen >= readLimit;
        const place = lastSeen && { dueAt: lastSeen.dueAt, seq: lastSeen.seq };
        if (reading) readEnd = [end, cutShort, fullKeys, place];
        wantsMore = (end === 'end of rows' || end === 'an account filled up') && seen < readLimit;
        return chosen;
      },

      /** Whether the rows offered so far ran out, or an account filled up, before a slot, the pass-over budget or the read limit did. */
      wantsMore(): boolean {
        return wantsMore;
      },

      /** The last due callback looked at: the next page is read after it. */
      lastSeen(): QueuePlace | undefined {
        return lastSeen;
      },

      /**
       * How many more due callbacks this claim may look at, at most `pageRows`. When the only hosts
       * and accounts with due callbacks are known, the free room on them and one row more (the one
       * that shows them full): reading a whole page there loads rows the claim would only pass over.
       */
      nextReadSize(pageRows: number): number {
        const unread = Math.min(pageRows, readLimit - seen);
        const known = passes.keysWithDueRows();
        if (known === undefined) return unread;
        let room = 0;
        // A share has no more room than its host: counted once.
        for (const key of known) if (!isShareKey(key) || !known.has(hostKeyOfShare(key))) room += draft.roomOf(key);
        return Math.min(unread, Math.min(free - taken, room) + 1);
      },

      /**
       * Call once the claim is committed: remembers where its read stopped. True when the read was
       * cut short with slots left, so the next claim should come at once rather than wait for an answer.
       */
      committed(): boolean {
        return readEnd !== undefined && passes.ended(...readEnd);
      },
    };
  }

  return {
    /** Starts one claim (one transaction of the dispatcher's loop). */
    claim,

    /** A post started: it holds a slot overall, on its host and on its account until postEnded. */
    postStarted: slots.started,
    postEnded: slots.ended,

    /** Slots left for new posts. */
    freeSlots: slots.free,

    /** Callbacks were written or fell due: a paused read starts again; one under way no longer knows which keys have due callbacks. */
    callbacksChanged: passes.callbacksChanged,

    /** Forget where reads stopped: the next one starts from the first due callback. */
    restart: passes.restart,
  };
}

export type CallbackClaims = ReturnType<typeof createCallbackClaims>;
export type Claim = ReturnType<CallbackClaims['claim']>;
