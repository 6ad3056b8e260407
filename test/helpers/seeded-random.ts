/**
 * A small seeded generator (mulberry32) for tests whose random choices must be replayable: the
 * test prints its seed when it fails, and the same seed makes the same choices again.
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

/** The seed from `variable` when set (to replay a failure), else a fresh one. */
export function seedFrom(variable: string): number {
  const given = process.env[variable];
  return given ? Number(given) : Math.floor(Math.random() * 2 ** 31);
}
