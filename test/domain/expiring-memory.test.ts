import { describe, expect, it } from 'vitest';
import { createExpiringMemory } from '../../src/domain/expiring-memory.ts';

describe('createExpiringMemory', () => {
  it('answers a kept value until its time is up, then forgets it', () => {
    const memory = createExpiringMemory<string>(10, 1_000);
    memory.set('a', 'iMessage', 5_000);
    expect(memory.get('a', 5_999)).toBe('iMessage');
    expect(memory.get('a', 6_000)).toBeUndefined();
    expect(memory.get('a', 5_500)).toBeUndefined();
  });

  it('holds at most maxEntries values, forgetting all at once when a new key comes to a full memory', () => {
    const memory = createExpiringMemory<number>(2, 60_000);
    memory.set('a', 1, 0);
    memory.set('b', 2, 0);
    memory.set('b', 3, 0);
    expect([memory.get('a', 1), memory.get('b', 1)]).toEqual([1, 3]);
    memory.set('c', 4, 0);
    expect([memory.get('a', 1), memory.get('b', 1), memory.get('c', 1)]).toEqual([undefined, undefined, 4]);
  });
});
