import type { AccountRow, ContactRow } from '../db/rows.ts';
import { type OptOutIntent, optOutIntent } from '../domain/opt-out.ts';
import { ensureContact, upsertContact } from './contacts.ts';
import type { ServiceDeps } from './deps.ts';

/**
 * The contact an end user's message comes from, with their STOP (or START) applied: a contact
 * created by a STOP is created opted out. Answers whether this very message opted them out, which
 * its row and receive webhook carry. `stated` is the transport's own reading of the message (a
 * carrier's opt-out keyword handling), which wins over its words. Call inside the receiving transaction.
 */
export async function contactOfInbound(
  deps: ServiceDeps,
  account: AccountRow,
  from: string,
  content: string,
  now: number,
  stated?: OptOutIntent,
): Promise<{ contact: ContactRow; optedOut: boolean }> {
  const intent = stated ?? optOutIntent(content);
  if (intent === null) return { contact: await ensureContact(deps, account.id, from, now), optedOut: false };
  const optedOut = intent === 'opt_out';
  return { contact: await upsertContact(deps, account, from, { optedOut }, now), optedOut };
}
