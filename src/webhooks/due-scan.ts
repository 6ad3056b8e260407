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
};

type State =
  | { kind: 'fresh' }
  | { kind: 'walking'; after: DuePosition | undefined; passedOver: Set<string> }
  | { kind: 'waiting'; passedOver: Set<string> };

/**
 * Where the dispatcher's next scan of due rows starts. A host at its limit can have thousands of
 * due rows ahead of another host's, and each claim may pass over only a bounded number of them.
 * So scans walk the due list: each resumes after the last row the previous one looked at, the next
 * tick continuing a scan that was cut short, until one reaches the end of the list. Rows that fall
 * due behind the walk's position are found when the next walk starts from the first row. A walk
 * that passed over full hosts then waits: until one of them has a free slot, or new rows are
 * written (`changed`), another walk would only pass over the same rows again.
 */
export function createDueScan(perHostLimit: number) {
  let state: State = { kind: 'fresh' };

  return {
    /** Asked once the finished rows' followers took their slots, with each host's load then. */
    start(loadOf: (host: string) => number): DueScanStart {
      if (state.kind === 'walking') return state.after ?? 'first';
      if (state.kind === 'waiting' && ![...state.passedOver].some((host) => loadOf(host) < perHostLimit)) return 'none';
      state = { kind: 'fresh' };
      return 'first';
    },

    /** Records how the scan that `start` allowed ended; true when the next tick should go on with the walk. */
    finished(outcome: ScanOutcome): boolean {
      const passedOver = state.kind === 'fresh' ? new Set<string>() : state.passedOver;
      for (const host of outcome.passedOver) passedOver.add(host);
      if (outcome.cutShort || outcome.slotsFull) {
        const after = outcome.lastSeen ?? (state.kind === 'walking' ? state.after : undefined);
        state = { kind: 'walking', after, passedOver };
        // Slots full: the next answer frees one and ticks anyway.
        return outcome.cutShort && !outcome.slotsFull;
      }
      state = passedOver.size === 0 ? { kind: 'fresh' } : { kind: 'waiting', passedOver };
      return false;
    },

    /** Rows were written or fell due: a waiting walk starts again (a walk under way reaches them). */
    changed(): void {
      if (state.kind === 'waiting') state = { kind: 'fresh' };
    },

    /** Forget the walk: the next scan starts from the first due row. */
    reset(): void {
      state = { kind: 'fresh' };
    },
  };
}
