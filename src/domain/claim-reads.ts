/**
 * Where a claim's read of due callbacks starts, and what the reads before it learnt. A full host or
 * account can have thousands of due callbacks ahead of another's, and a claim passes over at most
 * a budget of them. So reads go through the due list in turns: each resumes after the last
 * callback the one before looked at, until one reaches the end. Callbacks that fall due behind that
 * place are found when the next pass starts from the first. A pass that reached the end having
 * passed over full hosts or accounts then pauses until one of them frees a slot or callbacks are
 * written: another pass would only pass over the same callbacks again.
 *
 * Such a pass also tells which hosts and accounts have due callbacks: only those it passed over.
 * The pass that starts when one of them frees a slot takes its oldest callbacks and stops as soon
 * as all of them are full again, instead of reading the whole backlog once more. That knowledge
 * lasts until callbacks are written or fall due.
 */
import type { SlotKey } from './claim-slots.ts';

/** A due callback's place in the due order: by due time, then by seq. */
export type QueuePlace = { dueAt: number; seq: number };

/** Where a claim's read of due callbacks starts: at the first, after a place an earlier read reached, or nowhere. */
export type ReadStart = 'first' | QueuePlace | 'none';

/** Why a read of due callbacks stopped. */
export type ReadEnd = 'end of rows' | 'slots full' | 'pass-over budget spent' | 'only full keys left' | 'an account filled up';

type ReadState =
  | { kind: 'from-first' }
  | {
      kind: 'resuming';
      after: QueuePlace | undefined;
      fullKeysPassed: Set<SlotKey>;
      /** The only hosts and accounts with due callbacks, as the last pass to the end found them; undefined when unknown. */
      keysWithDueRows: ReadonlySet<SlotKey> | undefined;
    }
  | { kind: 'paused'; fullKeysPassed: Set<SlotKey> };

/** Whether any of `keys` has a free slot; the overall concurrency bounds how many can be full at once, so this returns early. */
export function anyHasRoom(keys: ReadonlySet<SlotKey>, hasRoom: (key: SlotKey) => boolean): boolean {
  for (const key of keys) if (hasRoom(key)) return true;
  return false;
}

export function createReadPasses() {
  let state: ReadState = { kind: 'from-first' };

  return {
    start(hasRoom: (key: SlotKey) => boolean): ReadStart {
      if (state.kind === 'resuming') return state.after ?? 'first';
      if (state.kind === 'paused') {
        if (!anyHasRoom(state.fullKeysPassed, hasRoom)) return 'none';
        state = { kind: 'resuming', after: undefined, fullKeysPassed: new Set(), keysWithDueRows: state.fullKeysPassed };
      }
      return 'first';
    },

    /** The only keys with due callbacks, when the pass under way knows them. */
    keysWithDueRows(): ReadonlySet<SlotKey> | undefined {
      return state.kind === 'resuming' ? state.keysWithDueRows : undefined;
    },

    /** Records how a read ended; true when the next claim should go on reading at once. */
    ended(end: ReadEnd, cutShort: boolean, fullKeys: ReadonlySet<SlotKey>, lastSeen: QueuePlace | undefined): boolean {
      const pass = state.kind === 'resuming' ? state : undefined;
      const fullKeysPassed = pass?.fullKeysPassed ?? new Set<SlotKey>();
      for (const key of fullKeys) fullKeysPassed.add(key);
      if (end === 'only full keys left' && pass?.keysWithDueRows) {
        for (const key of pass.keysWithDueRows) fullKeysPassed.add(key);
        state = { kind: 'paused', fullKeysPassed };
        return false;
      }
      if (cutShort || end === 'slots full') {
        state = { kind: 'resuming', after: lastSeen ?? pass?.after, fullKeysPassed, keysWithDueRows: pass?.keysWithDueRows };
        // Slots full: the next answer frees one and starts a claim anyway.
        return cutShort && end !== 'slots full';
      }
      state = fullKeysPassed.size === 0 ? { kind: 'from-first' } : { kind: 'paused', fullKeysPassed };
      return false;
    },

    /** Callbacks were written or fell due: a paused read starts again; one under way no longer knows which keys have due callbacks. */
    callbacksChanged(): void {
      if (state.kind === 'paused') state = { kind: 'from-first' };
      else if (state.kind === 'resuming') state.keysWithDueRows = undefined;
    },

    /** Forget where reads stopped: the next one starts from the first due callback. */
    restart(): void {
      state = { kind: 'from-first' };
    },
  };
}
