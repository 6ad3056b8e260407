import { createHash, randomBytes } from 'node:crypto';
import type { AccountRow } from '../db/rows.ts';
import { authenticate } from './accounts.ts';
import type { ServiceDeps } from './deps.ts';
import { pruneInBatches } from './pruning.ts';
import { inTransaction } from './transactions.ts';

/** A working day: long enough not to nag, short enough that a forgotten laptop does not stay signed in for good. */
export const INBOX_SESSION_MS = 12 * 60 * 60 * 1000;

export type OpenedSession = { token: string; expiresAt: number };

/*
 * Only the token's hash is stored, so a copy of the database opens no session. The lookup by hash
 * needs no constant-time compare: a caller cannot steer the hash of a guess towards a stored one.
 */
function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** Signs in with the account's API credentials (checked like an API call); undefined when they are wrong. */
export async function openInboxSession(deps: ServiceDeps, apiKeyId: string, apiSecret: string): Promise<OpenedSession | undefined> {
  const account = await authenticate(deps, apiKeyId, apiSecret);
  if (!account) return undefined;
  const token = randomBytes(32).toString('base64url');
  const now = deps.clock.now();
  const expiresAt = now + INBOX_SESSION_MS;
  await inTransaction(deps, async (deps) => {
    await deps.store.inbox.deleteExpiredSessions(account.id, now);
    await deps.store.inbox.insertSession({
      tokenHash: hashToken(token),
      accountId: account.id,
      apiSecretHash: account.apiSecretHash,
      createdAt: now,
      expiresAt,
    });
  });
  return { token, expiresAt };
}

/** The account a session token belongs to, while the session lasts and the API secret it was opened with is still the account's. */
export async function accountOfInboxSession(deps: ServiceDeps, token: string): Promise<AccountRow | undefined> {
  const session = await deps.store.inbox.findSession(hashToken(token));
  if (!session || session.expiresAt <= deps.clock.now()) return undefined;
  const account = await deps.store.accounts.findById(session.accountId);
  return account && account.apiSecretHash === session.apiSecretHash ? account : undefined;
}

export async function closeInboxSession(deps: ServiceDeps, token: string): Promise<void> {
  await deps.store.inbox.deleteSession(hashToken(token));
}

/** Removes, batch by batch, the sessions of every account that have expired by `now`, including those of accounts that never sign in again. */
export function pruneExpiredInboxSessions(deps: ServiceDeps, now: number): AsyncGenerator<number, void, void> {
  return pruneInBatches(async (afterRowid, limit) => await deps.store.inbox.pruneExpiredSessions(now, afterRowid, limit));
}
