/**
 * Which webhook callbacks the dispatcher claims, and what an attempt's answer does to its
 * callback. Pure: the database hands in candidate rows and applies the choices made here.
 *
 * A message's callbacks to one URL go out in order: the database keeps the next one waiting
 * (not due) until the one before it is delivered or given up, and then hands it in here first, so
 * it can take the slot the finished one left. Then come due callbacks, oldest due first, each
 * taken while there is a free slot overall and on its destination host.
 */
import { remembering } from './remembering.ts';

// ---- What an attempt's answer does -------------------------------------------------------

/** What becomes of a callback after one attempt. */
export type AttemptOutcome = { kind: 'delivered' } | { kind: 'retry'; nextAttemptAt: number } | { kind: 'failed' };

/** What the receiver answered: its status (null when no answer came) and its Retry-After, if any. */
export type AttemptAnswer = { statusCode: number | null; retryAfterMs?: number | undefined };

/** ±20%: receivers that failed together should not all be retried in the same instant. */
const JITTER = 0.2;

/**
 * After attempt number `attempt` (1 for the first), answered at `now`: delivered on a 2xx, given
 * up on a 410 or once the schedule is spent, otherwise retried after the schedule's pause (with
 * jitter). `schedule` holds the pauses between attempts, so a callback gets `schedule.length + 1`
 * attempts. A Retry-After replaces the pause but never goes beyond the schedule's longest one, so a
 * receiver cannot park a callback for a year.
 */
export function outcomeOf(
  answer: AttemptAnswer,
  attempt: number,
  schedule: readonly number[],
  random: () => number,
  now: number,
): AttemptOutcome {
  const { statusCode, retryAfterMs } = answer;
  if (statusCode !== null && statusCode >= 200 && statusCode < 300) return { kind: 'delivered' };
  if (statusCode === 410) return { kind: 'failed' };
  const pause = schedule[attempt - 1];
  if (pause === undefined) return { kind: 'failed' };
  const delay =
    retryAfterMs !== undefined
      ? Math.min(Math.max(retryAfterMs, 0), Math.max(...schedule))
      : Math.round(pause * (1 - JITTER + 2 * JITTER * random()));
  return { kind: 'retry', nextAttemptAt: now + delay };
}

// ---- Which callbacks to claim ------------------------------------------------------------

/** A due callback's place in the due order: by due time, then by seq. */
export type QueuePlace = { dueAt: number; seq: number };

/** Where a claim's read of due callbacks starts: at the first, after a place an earlier read reached, or nowhere. */
export type ReadStart = 'first' | QueuePlace | 'none';

export type ClaimLimits = {
  /** Posts in flight at once, overall. */
  concurrency: number;
  /** Posts in flight at once per destination host, so one slow receiver cannot take every slot. */
  perHostLimit: number;
};

/** Due callbacks a claim may read, per free slot. */
const ROWS_READ_PER_FREE_SLOT = 4;
/** Due callbacks of full hosts a claim may pass over, looking for other hosts' callbacks. */
const FULL_HOST_ROWS_PER_CLAIM = 64;

/** Claims look at every callback's host: a batch's callbacks mostly share a few URLs, so parse each once. */
const hostOf = remembering((url: string) => new URL(url).host, 1_000);

/**
 * Where the next read of due callbacks starts. A full host can have thousands of due callbacks
 * ahead of another host's, and a claim passes over at most FULL_HOST_ROWS_PER_CLAIM of them. So
 * reads go through the due list in turns: each resumes after the last callback the one before
 * looked at, until one reaches the end. Callbacks that fall due behind that place are found when
 * the next pass starts from the first. A pass that reached the end having passed over full hosts
 * then pauses until one of them frees a slot or callbacks are written: another pass would only
 * pass over the same callbacks again.
 *
 * Such a pass also tells which hosts have due callbacks: only those it passed over. The pass that
 * starts when one of them frees a slot takes that host's oldest callbacks and stops as soon as all
 * of those hosts are full again, instead of reading the whole backlog once more. That knowledge
 * lasts until callbacks are written or fall due.
 */
type ReadState =
  | { kind: 'from-first' }
  | {
      kind: 'resuming';
      after: QueuePlace | undefined;
      fullHostsPassed: Set<string>;
      /** The only hosts with due callbacks, as the last pass to the end found them; undefined when unknown. */
      hostsWithDueRows: ReadonlySet<string> | undefined;
    }
  | { kind: 'paused'; fullHostsPassed: Set<string> };

/** Why a read of due callbacks stopped. */
type ReadEnd = 'end of rows' | 'slots full' | 'pass-over budget spent' | 'only full hosts left';

export function createCallbackClaims(limits: ClaimLimits) {
  const postsPerHost = new Map<string, number>();
  let posting = 0;
  let state: ReadState = { kind: 'from-first' };

  // Overall concurrency bounds how many hosts can be full at once, so this returns early.
  function anyHasRoom(hosts: ReadonlySet<string>, loadOf: (host: string) => number): boolean {
    for (const host of hosts) if (loadOf(host) < limits.perHostLimit) return true;
    return false;
  }

  function readStart(loadOf: (host: string) => number): ReadStart {
    if (state.kind === 'resuming') return state.after ?? 'first';
    if (state.kind === 'paused') {
      if (!anyHasRoom(state.fullHostsPassed, loadOf)) return 'none';
      state = { kind: 'resuming', after: undefined, fullHostsPassed: new Set(), hostsWithDueRows: state.fullHostsPassed };
    }
    return 'first';
  }

  /** Records how a read ended; true when the next claim should go on reading at once. */
  function readEnded(end: ReadEnd, cutShort: boolean, fullHosts: ReadonlySet<string>, lastSeen: QueuePlace | undefined): boolean {
    const pass = state.kind === 'resuming' ? state : undefined;
    const fullHostsPassed = pass?.fullHostsPassed ?? new Set<string>();
    for (const host of fullHosts) fullHostsPassed.add(host);
    if (end === 'only full hosts left' && pass?.hostsWithDueRows) {
      for (const host of pass.hostsWithDueRows) fullHostsPassed.add(host);
      state = { kind: 'paused', fullHostsPassed };
      return false;
    }
    if (cutShort || end === 'slots full') {
      state = { kind: 'resuming', after: lastSeen ?? pass?.after, fullHostsPassed, hostsWithDueRows: pass?.hostsWithDueRows };
      // Slots full: the next answer frees one and starts a claim anyway.
      return cutShort && end !== 'slots full';
    }
    state = fullHostsPassed.size === 0 ? { kind: 'from-first' } : { kind: 'paused', fullHostsPassed };
    return false;
  }

  function callbacksChanged(): void {
    if (state.kind === 'paused') state = { kind: 'from-first' };
    else if (state.kind === 'resuming') state.hostsWithDueRows = undefined;
  }

  /**
   * One claim, in the order the database asks: first the next callbacks of finished ones, then
   * where to start reading due callbacks, then which of those to take.
   */
  function claim() {
    const free = limits.concurrency - posting;
    const planned = new Map<string, number>();
    const loadOf = (host: string) => (postsPerHost.get(host) ?? 0) + (planned.get(host) ?? 0);
    const hasRoom = (host: string) => loadOf(host) < limits.perHostLimit;
    const readLimit = Math.max(free, 1) * ROWS_READ_PER_FREE_SLOT;
    let taken = 0;
    let reading = false;
    let readEnd: Parameters<typeof readEnded> | undefined;
    // What chooseDue has read so far: it may be offered the due callbacks a page at a time.
    const fullHosts = new Set<string>();
    let seen = 0;
    let passedOver = 0;
    let lastSeen: QueuePlace | undefined;
    let wantsMore = true;

    function take(host: string): void {
      planned.set(host, (planned.get(host) ?? 0) + 1);
      taken += 1;
    }

    return {
      /** How many due callbacks the database should offer at most. */
      readLimit,

      /**
       * The next callbacks that delivered or given-up ones let go, each to the URL of the one
       * before it: those with a slot start now, the others become due and wait their turn.
       */
      splitNext<T extends { url: string }>(next: readonly T[]): { startNow: T[]; makeDue: T[] } {
        const startNow: T[] = [];
        const makeDue: T[] = [];
        for (const row of next) {
          const host = hostOf(row.url);
          if (taken < free && hasRoom(host)) {
            take(host);
            startNow.push(row);
          } else {
            makeDue.push(row);
          }
        }
        // Due now, and possibly behind the place the reads reached.
        if (makeDue.length > 0) callbacksChanged();
        return { startNow, makeDue };
      },

      /** Where to start reading due callbacks ('none': only full hosts have any). */
      readStart(): ReadStart {
        const start = readStart(loadOf);
        reading = start !== 'none';
        return start;
      },

      /**
       * Takes, from due callbacks offered in due order, those with a free slot on their host; reads
       * as few as it can. May be called again with the rows that follow (a page at a time) while
       * `wantsMore()`: it goes on where it stopped.
       */
      chooseDue<T extends QueuePlace & { url: string }>(due: Iterable<T>): T[] {
        const chosen: T[] = [];
        let end: ReadEnd = 'end of rows';
        for (const row of due) {
          if (taken >= free) {
            end = 'slots full';
            break;
          }
          if (passedOver >= FULL_HOST_ROWS_PER_CLAIM) {
            end = 'pass-over budget spent';
            break;
          }
          seen += 1;
          lastSeen = row;
          const host = hostOf(row.url);
          if (hasRoom(host)) {
            take(host);
            chosen.push(row);
            continue;
          }
          fullHosts.add(host);
          passedOver += 1;
          const known = state.kind === 'resuming' ? state.hostsWithDueRows : undefined;
          if (known && !anyHasRoom(known, loadOf)) {
            end = 'only full hosts left';
            break;
          }
        }
        const cutShort = end === 'pass-over budget spent' || seen >= readLimit;
        const place = lastSeen && { dueAt: lastSeen.dueAt, seq: lastSeen.seq };
        if (reading) readEnd = [end, cutShort, fullHosts, place];
        wantsMore = end === 'end of rows' && seen < readLimit;
        return chosen;
      },

      /** Whether the rows offered so far ran out before a slot, the pass-over budget or the read limit did. */
      wantsMore(): boolean {
        return wantsMore;
      },

      /**
       * How many more due callbacks this claim may look at, at most `pageRows`. When the only hosts
       * with due callbacks are known, the free room on them and one row more (the one that shows
       * them full): reading a whole page there loads rows the claim would only pass over.
       */
      nextReadSize(pageRows: number): number {
        const unread = Math.min(pageRows, readLimit - seen);
        const known = state.kind === 'resuming' ? state.hostsWithDueRows : undefined;
        if (known === undefined) return unread;
        let room = 0;
        for (const host of known) room += Math.max(limits.perHostLimit - loadOf(host), 0);
        return Math.min(unread, Math.min(free - taken, room) + 1);
      },

      /**
       * Call once the claim is committed: remembers where its read stopped. True when the read was
       * cut short with slots left, so the next claim should come at once rather than wait for an answer.
       */
      committed(): boolean {
        return readEnd !== undefined && readEnded(...readEnd);
      },
    };
  }

  return {
    /** Starts one claim (one transaction of the dispatcher's loop). */
    claim,

    /** A post to `url` started: it holds a slot overall and on its host until postEnded. */
    postStarted(url: string): void {
      const host = hostOf(url);
      postsPerHost.set(host, (postsPerHost.get(host) ?? 0) + 1);
      posting += 1;
    },

    postEnded(url: string): void {
      const host = hostOf(url);
      const load = (postsPerHost.get(host) ?? 1) - 1;
      if (load === 0) postsPerHost.delete(host);
      else postsPerHost.set(host, load);
      posting -= 1;
    },

    /** Slots left for new posts. */
    freeSlots(): number {
      return limits.concurrency - posting;
    },

    /** Callbacks were written or fell due: a paused read starts again; one under way no longer knows which hosts have due callbacks. */
    callbacksChanged,

    /** Forget where reads stopped: the next one starts from the first due callback. */
    restart(): void {
      state = { kind: 'from-first' };
    },
  };
}

export type CallbackClaims = ReturnType<typeof createCallbackClaims>;
export type Claim = ReturnType<CallbackClaims['claim']>;
