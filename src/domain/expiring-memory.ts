/**
 * Answers kept for `ttlMs` each, `maxEntries` at most: once full it forgets them all at once (as
 * `remembering` does), which bounds the memory without bookkeeping per hit. Time is given by the caller.
 */
export function createExpiringMemory<V>(maxEntries: number, ttlMs: number) {
  const answers = new Map<string, { value: V; until: number }>();
  return {
    get(key: string, now: number): V | undefined {
      const kept = answers.get(key);
      if (kept === undefined) return undefined;
      if (kept.until > now) return kept.value;
      answers.delete(key);
      return undefined;
    },
    set(key: string, value: V, now: number): void {
      if (answers.size >= maxEntries && !answers.has(key)) answers.clear();
      answers.set(key, { value, until: now + ttlMs });
    },
  };
}
