import { describe, expect, it } from 'vitest';
import { timeOrderedUuid } from '../../src/services/ids.ts';
import { UUID_LOWER } from '../helpers/fixtures.ts';

describe('time-ordered ids', () => {
  it('are lower-case UUIDs of version 7 carrying their millisecond', () => {
    const at = Date.UTC(2026, 10, 23, 19, 30);
    const id = timeOrderedUuid(at);
    expect(id).toMatch(UUID_LOWER);
    expect(id[14]).toBe('7');
    expect('89ab').toContain(id[19]);
    expect(parseInt(id.replace(/-/g, '').slice(0, 12), 16)).toBe(at);
  });

  it('sort by the time they were made, and never repeat', () => {
    const ids = Array.from({ length: 1_000 }, (_, i) => timeOrderedUuid(1_700_000_000_000 + i));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(Array.from({ length: 10_000 }, () => timeOrderedUuid(1_700_000_000_000))).size).toBe(10_000);
  });
});
