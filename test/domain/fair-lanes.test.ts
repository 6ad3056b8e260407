import { describe, expect, it } from 'vitest';
import { createFairLanes } from '../../src/domain/fair-lanes.ts';

/** Takes until no slot is free or nothing may start; answers `lane:item` for each. */
function takeAll<T>(lanes: ReturnType<typeof createFairLanes<T>>): string[] {
  const taken: string[] = [];
  for (let next = lanes.take(); next; next = lanes.take()) taken.push(`${next.lane}:${String(next.item)}`);
  return taken;
}

describe('fair lanes', () => {
  it('a lane arriving behind a backlog is served at its first turn, not after the backlog', () => {
    const lanes = createFairLanes<number>({ slots: 4, perLane: 4 });
    for (let i = 0; i < 1_000; i += 1) lanes.push('flood', i);
    expect(takeAll(lanes)).toEqual(['flood:0', 'flood:1', 'flood:2', 'flood:3']);
    lanes.push('victim', 1);
    lanes.done('flood');
    expect(takeAll(lanes), 'the freed slot goes to the lane whose turn it is').toEqual(['victim:1']);
    lanes.done('flood');
    expect(takeAll(lanes)).toEqual(['flood:4']);
  });

  it('holds each lane to its cap, so a backlog leaves slots free for others', () => {
    const lanes = createFairLanes<number>({ slots: 8, perLane: 3 });
    for (let i = 0; i < 100; i += 1) lanes.push('flood', i);
    expect(takeAll(lanes)).toEqual(['flood:0', 'flood:1', 'flood:2']);
    lanes.push('other', 7);
    expect(takeAll(lanes), 'started at once: slots were free').toEqual(['other:7']);
    expect([lanes.busy, lanes.waiting]).toEqual([4, 97]);
    lanes.done('flood');
    expect(takeAll(lanes)).toEqual(['flood:3']);
  });

  it('takes lanes in turn, each in its own first-in-first-out order', () => {
    const lanes = createFairLanes<string>({ slots: 100, perLane: 100 });
    for (const item of ['a1', 'a2', 'a3', 'a4']) lanes.push('a', item);
    for (const item of ['b1', 'b2']) lanes.push('b', item);
    lanes.push('c', 'c1');
    expect(takeAll(lanes)).toEqual(['a:a1', 'b:b1', 'c:c1', 'a:a2', 'b:b2', 'a:a3', 'a:a4']);
  });

  it('never holds more than its slots, however many lanes wait', () => {
    const lanes = createFairLanes<number>({ slots: 2, perLane: 2 });
    for (const key of ['a', 'b', 'c']) lanes.push(key, 1);
    expect(takeAll(lanes)).toEqual(['a:1', 'b:1']);
    expect(lanes.take()).toBeUndefined();
    lanes.done('a');
    expect(takeAll(lanes)).toEqual(['c:1']);
  });

  it('puts an item back at the front of its lane when told it was first (a retry)', () => {
    const lanes = createFairLanes<string>({ slots: 1, perLane: 1 });
    lanes.push('a', 'second');
    lanes.push('a', 'first', { first: true });
    expect(takeAll(lanes)).toEqual(['a:first']);
    lanes.done('a');
    expect(takeAll(lanes)).toEqual(['a:second']);
  });

  it('forgets lanes with nothing waiting or in flight, and refuses a done without a take', () => {
    const lanes = createFairLanes<number>({ slots: 4, perLane: 2 });
    lanes.push('a', 1);
    expect(takeAll(lanes)).toEqual(['a:1']);
    lanes.done('a');
    expect([lanes.busy, lanes.waiting, lanes.waitingIn('a')]).toEqual([0, 0, 0]);
    expect(() => lanes.done('a')).toThrow(/holds no slot/);
  });

  it('clear drops what waits; slots in flight are freed by done', () => {
    const lanes = createFairLanes<number>({ slots: 1, perLane: 1 });
    lanes.push('a', 1);
    lanes.push('a', 2);
    lanes.push('b', 3);
    expect(takeAll(lanes)).toEqual(['a:1']);
    lanes.clear();
    expect(lanes.waiting).toBe(0);
    lanes.done('a');
    expect(lanes.take()).toBeUndefined();
    lanes.push('b', 4);
    expect(takeAll(lanes)).toEqual(['b:4']);
  });

  it('keeps order and counts through a long run of pushes and takes', () => {
    const lanes = createFairLanes<number>({ slots: 3, perLane: 2 });
    const seen = new Map<string, number[]>();
    let pushed = 0;
    for (let round = 0; round < 500; round += 1) {
      for (const key of ['a', 'b', 'c', 'd']) if ((round + key.charCodeAt(0)) % 3 !== 0) lanes.push(key, pushed++);
      for (let next = lanes.take(); next; next = lanes.take()) {
        seen.set(next.lane, [...(seen.get(next.lane) ?? []), next.item]);
        lanes.done(next.lane);
      }
    }
    const all = [...seen.values()].flat();
    expect(all.length).toBe(pushed);
    for (const items of seen.values()) expect(items).toEqual([...items].sort((x, y) => x - y));
  });
});
