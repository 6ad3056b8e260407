import type { ContactRow } from '../db/rows.ts';
import { optOutIntent } from '../domain/opt-out.ts';
import type { ServiceDeps } from './deps.ts';

/**
 * An end user's STOP (or START) message sets (or clears) their contact's opt-out. Answers whether
 * this message opted them out, which its row and receive webhook carry. Call inside the receiving transaction.
 */
export function applyOptOutKeyword(deps: ServiceDeps, contact: ContactRow, content: string, now: number): boolean {
  const intent = optOutIntent(content);
  if (intent === null) return false;
  const optedOut = intent === 'opt_out';
  if (contact.optedOut !== optedOut) deps.store.contacts.update(contact.id, { optedOut }, now);
  return optedOut;
}
