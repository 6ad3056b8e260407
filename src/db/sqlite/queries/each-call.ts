/**
 * The twin `<method>Many` of a single query on SQLite: each call in turn. The group commit merges
 * the same method's calls of a batch into one call of its twin; in process, a statement costs
 * microseconds, so a loop is as good as one set-based statement.
 */
export function eachCall<Args extends unknown[], Result>(single: (...args: Args) => Result): (calls: readonly Args[]) => Result[] {
  return (calls) => calls.map((args) => single(...args));
}
