import { describe, expect, it } from 'vitest';
import { GROUP_PLAN, PLANS, planAllows, SEND_STYLES } from '../../src/domain/limits.ts';
import { SEND_STYLES as SPEC_SEND_STYLES } from '../helpers/fixtures.ts';

describe('planAllows', () => {
  it.each([
    ['blue', 'blue', true],
    ['blue', 'sapphire', false],
    ['sapphire', 'blue', true],
    ['sapphire', 'sapphire', true],
  ] as const)('plan %s, required %s -> %s', (plan, required, expected) => {
    expect(planAllows(plan, required)).toBe(expected);
  });

  it('lists the plans lowest tier first', () => {
    expect([...PLANS]).toEqual(['blue', 'sapphire']);
  });

  it('requires sapphire for group messaging', () => {
    expect(GROUP_PLAN).toBe('sapphire');
    expect(planAllows('blue', GROUP_PLAN)).toBe(false);
    expect(planAllows('sapphire', GROUP_PLAN)).toBe(true);
  });
});

describe('SEND_STYLES', () => {
  const expected = SPEC_SEND_STYLES;

  it('has exactly the 13 listed styles', () => {
    expect(SEND_STYLES).toHaveLength(13);
    expect([...SEND_STYLES].sort()).toEqual([...expected].sort());
  });

  it('has no duplicates', () => {
    expect(new Set(SEND_STYLES).size).toBe(SEND_STYLES.length);
  });

  it('uses lower snake_case names', () => {
    for (const style of SEND_STYLES) expect(style).toMatch(/^[a-z]+(_[a-z]+)*$/);
  });
});
