/**
 * Slots shared between lanes in turn. A lane is one party's queue (for the courier: one account's
 * hand-overs on one carrier), first in first out; lanes with work take turns (round robin), each
 * holds at most `perLane` slots and all together at most `slots`. So a lane with thousands waiting
 * holds its share of the slots and a newly busy lane is served at its first turn, never behind
 * the backlog of another.
 */
export type LaneLimits = {
  /** Items in flight at once, over all lanes. */
  slots: number;
  /** Items in flight at once per lane: a backlog never takes every slot. */
  perLane: number;
};

/** A first-in-first-out queue whose take is O(1) however long it grows. */
class Fifo<T> {
  private items: T[] = [];
  private head = 0;

  get length(): number {
    return this.items.length - this.head;
  }

  push(item: T): void {
    this.items.push(item);
  }

  unshift(item: T): void {
    if (this.head > 0) this.items[--this.head] = item;
    else this.items.unshift(item);
  }

  shift(): T | undefined {
    if (this.head >= this.items.length) return undefined;
    const item = this.items[this.head]!;
    this.items[this.head++] = undefined as T;
    // Taken items are dropped once they are half the array: memory follows what still waits.
    if (this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }
}

type Lane<T> = { waiting: Fifo<T>; busy: number; inTurn: boolean };

export type Taken<T> = { lane: string; item: T };

export function createFairLanes<T>(limits: LaneLimits) {
  const lanes = new Map<string, Lane<T>>();
  /** The lanes that may take a slot now, in the order of their turns; each at most once. */
  let turns = new Fifo<string>();
  let busy = 0;
  let waiting = 0;

  const ready = (lane: Lane<T>) => lane.waiting.length > 0 && lane.busy < limits.perLane;

  function offerTurn(key: string, lane: Lane<T>): void {
    if (lane.inTurn || !ready(lane)) return;
    lane.inTurn = true;
    turns.push(key);
  }

  function laneOf(key: string): Lane<T> {
    let lane = lanes.get(key);
    if (!lane) {
      lane = { waiting: new Fifo<T>(), busy: 0, inTurn: false };
      lanes.set(key, lane);
    }
    return lane;
  }

  function forget(key: string, lane: Lane<T>): void {
    if (lane.waiting.length === 0 && lane.busy === 0 && !lane.inTurn) lanes.delete(key);
  }

  return {
    /** Queues `item` at the back of its lane, or at the front (`first`: it was there before, as a retry is). */
    push(key: string, item: T, options: { first?: boolean } = {}): void {
      const lane = laneOf(key);
      if (options.first) lane.waiting.unshift(item);
      else lane.waiting.push(item);
      waiting += 1;
      offerTurn(key, lane);
    },
    /** The next item to start, by turns, holding a slot until `done`; undefined when no slot is free or no lane may take one. */
    take(): Taken<T> | undefined {
      while (busy < limits.slots) {
        const key = turns.shift();
        if (key === undefined) return undefined;
        const lane = lanes.get(key)!;
        lane.inTurn = false;
        const item = lane.waiting.shift();
        if (item === undefined) {
          forget(key, lane);
          continue;
        }
        waiting -= 1;
        lane.busy += 1;
        busy += 1;
        // Back to the end of the turns: every other lane ready now goes before its next item.
        offerTurn(key, lane);
        return { lane: key, item };
      }
      return undefined;
    },
    /** The item `take` gave from lane `key` finished: its slot is free. */
    done(key: string): void {
      const lane = lanes.get(key);
      if (!lane || lane.busy === 0) throw new Error(`lane ${key} holds no slot`);
      lane.busy -= 1;
      busy -= 1;
      offerTurn(key, lane);
      forget(key, lane);
    },
    /** Items queued and not yet taken. */
    get waiting(): number {
      return waiting;
    },
    /** Slots held. */
    get busy(): number {
      return busy;
    },
    /** Items queued in lane `key`, not yet taken. */
    waitingIn(key: string): number {
      return lanes.get(key)?.waiting.length ?? 0;
    },
    /** Drops every queued item; slots held stay held until `done`. */
    clear(): void {
      for (const [key, lane] of lanes) {
        lane.waiting = new Fifo<T>();
        lane.inTurn = false;
        forget(key, lane);
      }
      turns = new Fifo<string>();
      waiting = 0;
    },
  };
}

export type FairLanes<T> = ReturnType<typeof createFairLanes<T>>;
