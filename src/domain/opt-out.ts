/** The keywords carriers and the public service honour: a message that is exactly one of them changes the sender's opt-out. */
export const OPT_OUT_WORDS = ['STOP', 'STOPALL', 'UNSUBSCRIBE', 'CANCEL', 'END', 'QUIT'] as const;
export const OPT_IN_WORDS = ['START', 'UNSTOP'] as const;

export type OptOutIntent = 'opt_out' | 'opt_in';

const OPT_OUT = new Set<string>(OPT_OUT_WORDS);
const OPT_IN = new Set<string>(OPT_IN_WORDS);
const LONGEST_WORD = Math.max(...[...OPT_OUT_WORDS, ...OPT_IN_WORDS].map((word) => word.length));

/** What an inbound message's content asks for: only the whole trimmed text counts, in any letter case. */
export function optOutIntent(content: string): OptOutIntent | null {
  const trimmed = content.trim();
  // Longer than every keyword: ordinary messages are never upper-cased.
  if (trimmed.length > LONGEST_WORD) return null;
  const word = trimmed.toUpperCase();
  if (OPT_OUT.has(word)) return 'opt_out';
  if (OPT_IN.has(word)) return 'opt_in';
  return null;
}
