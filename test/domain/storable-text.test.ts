import { describe, expect, it } from 'vitest';
import { storableText, withStorableText } from '../../src/domain/storable-text.ts';

describe('storableText', () => {
  it.each([
    ['plain text', 'plain text'],
    ['', ''],
    ['a\u0000b', 'a\uFFFDb'],
    ['\u0000\u0000', '\uFFFD\uFFFD'],
    ['high \ud83d alone', 'high \uFFFD alone'],
    ['low \ude42 alone', 'low \uFFFD alone'],
    ['at the end \ud83d', 'at the end \uFFFD'],
    ['a pair 🙂 stays', 'a pair 🙂 stays'],
    ['two highs \ud83d\ud83d\ude42', 'two highs \uFFFD🙂'],
    ['other controls \u0001\u001f stay', 'other controls \u0001\u001f stay'],
  ])('%j becomes %j', (text, stored) => {
    expect(storableText(text)).toBe(stored);
  });
});

describe('withStorableText', () => {
  it('replaces in nested arrays and plain objects, keys included, and leaves other objects and values alone', () => {
    const reportedBy = new Set(['a\u0000']);
    const value = { text: 'x\u0000', list: ['ok', 'y\ud800'], nested: { 'k\u0000': 1, none: null, flag: true }, reportedBy };
    expect(withStorableText(value)).toEqual({
      text: 'x\uFFFD',
      list: ['ok', 'y\uFFFD'],
      nested: { 'k\uFFFD': 1, none: null, flag: true },
      reportedBy,
    });
    expect(withStorableText(value).reportedBy).toBe(reportedBy);
  });

  it('answers the very value when there is nothing to replace', () => {
    const value = { text: 'fine', list: ['ok'], nested: { n: 1 } };
    expect(withStorableText(value)).toBe(value);
  });
});
