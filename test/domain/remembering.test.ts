import { describe, expect, it } from 'vitest';
import { remembering } from '../../src/domain/remembering.ts';

function countingLength() {
  const computed: string[] = [];
  const lengthOf = remembering((key) => {
    computed.push(key);
    return key.length;
  }, 3);
  return { lengthOf, computed };
}

describe('remembering', () => {
  it('computes each key once while the memory has room', () => {
    const { lengthOf, computed } = countingLength();
    expect(['a', 'bb', 'a', 'ccc', 'bb', 'a'].map(lengthOf)).toEqual([1, 2, 1, 3, 2, 1]);
    expect(computed).toEqual(['a', 'bb', 'ccc']);
  });

  it('forgets everything when full, then answers the same and computes again', () => {
    const { lengthOf, computed } = countingLength();
    ['a', 'bb', 'ccc'].forEach(lengthOf);
    expect(lengthOf('dddd')).toBe(4); // the fourth key: the memory of three is cleared first
    expect(lengthOf('a')).toBe(1);
    expect(lengthOf('dddd')).toBe(4);
    expect(computed).toEqual(['a', 'bb', 'ccc', 'dddd', 'a']);
  });

  it('remembers falsy answers too', () => {
    const computed: string[] = [];
    const isEmpty = remembering((key) => {
      computed.push(key);
      return key === '' ? 0 : null;
    }, 10);
    expect([isEmpty(''), isEmpty(''), isEmpty('x'), isEmpty('x')]).toEqual([0, 0, null, null]);
    expect(computed).toEqual(['', 'x']);
  });
});
