/**
 * Wraps a pure, costly function of a string with a memory of its answers. The memory is bounded:
 * once it holds `maxEntries` answers it forgets them all at once, which costs one recomputation
 * per key afterwards and keeps no bookkeeping per hit (an LRU would, on every call).
 */
export function remembering<V>(compute: (key: string) => V, maxEntries: number): (key: string) => V {
  const answers = new Map<string, V>();
  return (key) => {
    let answer = answers.get(key);
    if (answer === undefined) {
      if (answers.size >= maxEntries) answers.clear();
      answer = compute(key);
      answers.set(key, answer);
    }
    return answer;
  };
}
