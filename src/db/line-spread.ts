/** A line of an account's and how many people are pinned to it. */
export type LoadedLine = { accountId: string; number: string; pinnedCount: number };

/**
 * The answers of `leastLoadedLine` for each call, in order, had each call's person been pinned
 * before the next call: the first line of least load, `lines` in the order that breaks ties
 * (created first, then by number). The set-based twin of both backends.
 */
export function spreadOverLines(calls: readonly [accountId: string][], lines: readonly LoadedLine[]): (string | undefined)[] {
  const byAccount = new Map<string, { number: string; load: number }[]>();
  for (const { accountId, number, pinnedCount } of lines) {
    const ofAccount = byAccount.get(accountId) ?? [];
    ofAccount.push({ number, load: pinnedCount });
    byAccount.set(accountId, ofAccount);
  }
  return calls.map(([accountId]) => {
    let least: { number: string; load: number } | undefined;
    for (const line of byAccount.get(accountId) ?? []) if (least === undefined || line.load < least.load) least = line;
    if (least) least.load += 1;
    return least?.number;
  });
}
