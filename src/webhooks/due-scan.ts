import type { DuePosition, DueScanStart } from '../db/queries/outbox.ts';

/** How a claim's scan of due rows ended. */
export type ScanOutcome = {
  /** Hosts whose due rows the scan passed over because they were at their limit. */
  passedOver: ReadonlySet<string>;
  /** The last due row it looked at (took or passed over), if any. */
  lastSeen: DuePosition | undefined;
  /** It stopped before the end of the due rows (its budget or its row limit ran out): more may lie beyond. */
  cutShort: boolean;
  /** It stopped because every free slot was taken. */
  slotsFull: boolean;
  /** It stopped because worthGoingOn said no: whatever lies beyond belongs to full hosts. */
  onlyFullHostsBeyond: boolean;
};

type State =
  | { kind: 'fresh' }
  /** `census`: the only hosts with due rows, as a walk that reached the end found them, while nothing changed since. */
  | { kind: 'walking'; after: DuePosition | undefined; passedOver: Set<string>; census: ReadonlySet<string> | undefined }
  | { kind: 'waiting'; passedOver: Set<string> };

/**
 * Where the dispatcher's next scan of due rows starts. A host at its limit can have thousands of
 * due rows ahead of another host's, and each claim may pass over only a bounded number of them.
 * So scans walk the due list: each resumes after the last row the previous one looked at, the next
 * tick continuing a scan that was cut short, until one reaches the end of the list. Rows that fall
 * due behind the walk's position are found when the next walk starts from the first row. A walk
 * that passed over full hosts then waits: until one of them has a free slot, or new rows are
 * written (`changed`), another walk would only pass over the same rows again.
 *
 * The end of such a walk is also a census: only the hosts it passed over have due rows. A walk
 * started because one of them freed a slot takes that host's oldest rows and then stops as soon
 * as every host of the census is full again, instead of walking the whole backlog once more.
 * With one busy receiver (the common case) this was the dispatcher's costliest statement: every
 * tick passed over 64 rows it could not take. The census lasts until rows change.
 */
export function createDueScan(perHostLimit: number) {
  let state: State = { kind: 'fresh' };

  // Overall concurrency bounds how many hosts can be full at once, so this returns early.
  function anyHasRoom(hosts: ReadonlySet<string>, loadOf: (host: string) => number): boolean {
    for (const host of hosts) if (loadOf(host) < perHostLimit) return true;
    return false;
  }

  return {
    /** Asked once the finished rows' followers took their slots, with each host's load then. */
    start(loadOf: (host: string) => number): DueScanStart {
      if (state.kind === 'walking') return state.after ?? 'first';
      if (state.kind === 'waiting') {
        if (!anyHasRoom(state.passedOver, loadOf)) return 'none';
        state = { kind: 'walking', after: undefined, passedOver: new Set(), census: state.passedOver };
        return 'first';
      }
      return 'first';
    },

    /**
     * Asked by the scan when it passes over a row: false once it is known that every row left
     * belongs to a host that is full (`loadOf` counting what the scan has taken so far).
     */
    worthGoingOn(loadOf: (host: string) => number): boolean {
      return state.kind !== 'walking' || state.census === undefined || anyHasRoom(state.census, loadOf);
    },

    /** Records how the scan that `start` allowed ended; true when the next tick should go on with the walk. */
    finished(outcome: ScanOutcome): boolean {
      const walk = state.kind === 'walking' ? state : undefined;
      const passedOver = walk?.passedOver ?? new Set<string>();
      for (const host of outcome.passedOver) passedOver.add(host);
      if (outcome.onlyFullHostsBeyond && walk?.census) {
        for (const host of walk.census) passedOver.add(host);
        state = { kind: 'waiting', passedOver };
        return false;
      }
      if (outcome.cutShort || outcome.slotsFull) {
        state = { kind: 'walking', after: outcome.lastSeen ?? walk?.after, passedOver, census: walk?.census };
        // Slots full: the next answer frees one and ticks anyway.
        return outcome.cutShort && !outcome.slotsFull;
      }
      state = passedOver.size === 0 ? { kind: 'fresh' } : { kind: 'waiting', passedOver };
      return false;
    },

    /** Rows were written or fell due: a waiting walk starts again, a walk under way loses its census (it reaches them). */
    changed(): void {
      if (state.kind === 'waiting') state = { kind: 'fresh' };
      else if (state.kind === 'walking') state.census = undefined;
    },

    /** Forget the walk: the next scan starts from the first due row. */
    reset(): void {
      state = { kind: 'fresh' };
    },
  };
}
