import { normalisePhoneSpelling } from '../domain/phone.ts';
import type { ServiceDeps } from './deps.ts';
import { limitWrites } from './rate-limiter.ts';
import type { TransportInbound } from './receive-inbound.ts';
import { reportedByItsProvider } from './upstream-credentials.ts';

/** Text beyond each this many bytes counts as one more write: a message's size is what it costs the database. */
const BYTES_PER_WRITE = 10 * 1024;

/** The writes one inbound message counts: one, one more per started 10 KB of text after the first, one per group participant. */
export function inboundWrites(inbound: Pick<TransportInbound, 'content' | 'participants'>): number {
  const textWrites = Math.max(1, Math.ceil(Buffer.byteLength(inbound.content) / BYTES_PER_WRITE));
  return textWrites + (inbound.participants?.length ?? 0);
}

/**
 * Counts an ingested inbound message against the write limit of the account owning its line
 * (TEXTRELAY_WRITE_RATE_LIMIT_PER_MINUTE), before anything is written: over it, a 4001 AppError
 * (429, Retry-After), and the transport retries. A message for no account's line counts against none.
 */
export async function limitIngestedInbound(deps: ServiceDeps, inbound: TransportInbound): Promise<void> {
  const line = normalisePhoneSpelling(inbound.toNumber);
  const owner = line === undefined ? undefined : await deps.store.accounts.findByServiceNumber(line);
  if (!owner || !reportedByItsProvider(deps, owner, inbound.reportedBy)) return;
  await limitWrites(deps, owner.id, inboundWrites(inbound));
}
