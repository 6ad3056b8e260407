import type { AttemptRecord, ClaimedDelivery, DueDelivery, FinishedDelivery, Store } from '../db/store.ts';
import type { AttemptOutcome } from '../domain/attempt-outcome.ts';
import type { Claim } from '../domain/callback-claims.ts';
import type { QueuePlace } from '../domain/claim-reads.ts';
import { getOrCreateWebhookSecret } from './account-webhooks.ts';
import type { ServiceDeps } from './deps.ts';

/** The outbox as the dispatcher works it: record what attempts did, claim what goes next, give back what it could not finish. */

/** Due callbacks read at once: a full host's pass-over budget and one row more, what most claims read in all. */
const DUE_PAGE_ROWS = 65;

/** The secret to sign a claimed row with: an account that never asked for its secret gets one now. */
export async function signingSecretOf(deps: ServiceDeps, row: ClaimedDelivery): Promise<string> {
  return row.webhookSecret ?? getOrCreateWebhookSecret(deps, row.accountId);
}

/** A claimed row's attempt as the outbox records it: the row, its lease, what the attempt got, and what follows. */
export function finishedDelivery(row: ClaimedDelivery, attempt: AttemptRecord, outcome: AttemptOutcome): FinishedDelivery {
  return {
    seq: row.seq,
    accountId: row.accountId,
    messageHandle: row.messageHandle,
    url: row.url,
    leaseExpiresAt: row.leaseExpiresAt,
    attempt,
    outcome,
  };
}

/**
 * In one transaction: records the finished attempts, then leases until now + `leaseMs` what
 * `claim` chooses: first the next callbacks the finished ones let go (those it does not start
 * become due), then due callbacks. Returns the leased rows, next callbacks first.
 */
export async function recordAndClaim(
  deps: ServiceDeps,
  finished: readonly FinishedDelivery[],
  claim: Claim,
  leaseMs: number,
): Promise<ClaimedDelivery[]> {
  const now = deps.clock.now();
  const lease = now + leaseMs;
  const claimed = await deps.store.transaction(async ({ outbox }) => {
    const { startNow, makeDue } = claim.splitNext(await outbox.recordAttempts(finished, now));
    await outbox.makeDue(makeDue, now);
    await outbox.startNext(startNow, lease, now);
    const start = claim.readStart();
    if (start === 'none') return outbox.claimed(startNow, lease);
    await outbox.expireLeases(now);
    const due = await chooseDuePages(outbox, claim, now, start);
    await outbox.lease(due, lease, now);
    return outbox.claimed(startNow.length === 0 ? due : [...startNow, ...due], lease);
  });
  tellAccounts(deps, finished);
  return claimed;
}

/**
 * Due callbacks a page at a time, each page read only if the claim wants more: a claim mostly stops
 * after a few dozen rows (its slots taken, or a full host's rows passed over), and reading its whole
 * read limit at once would load hundreds of payloads it never looks at. A page stops early where an
 * account, or its share of a host, fills up: the next one is read from there without those rows.
 */
async function chooseDuePages(outbox: Store['outbox'], claim: Claim, now: number, start: 'first' | QueuePlace) {
  const chosen: DueDelivery[] = [];
  let place = start;
  for (;;) {
    const size = claim.nextReadSize(DUE_PAGE_ROWS);
    if (size <= 0) break;
    const page = await outbox.dueCallbacks(now, place, size, claim.leftOut());
    chosen.push(...claim.chooseDue(page));
    const stop = claim.lastSeen();
    if (page.length === 0 || stop === undefined || !claim.wantsMore()) break;
    // A short page read to its end: there are no more due callbacks.
    if (page.length < size && stop === page.at(-1)) break;
    place = { dueAt: stop.dueAt, seq: stop.seq };
  }
  return chosen;
}

/** Records finished attempts without claiming (shutdown): the next callbacks they let go become due. */
export async function recordAttempts(deps: ServiceDeps, finished: readonly FinishedDelivery[]): Promise<void> {
  if (finished.length === 0) return;
  const now = deps.clock.now();
  await deps.store.transaction(async ({ outbox }) => outbox.makeDue(await outbox.recordAttempts(finished, now), now));
  tellAccounts(deps, finished);
}

/** After the commit: the inbox's deliveries page shows each attempt as it is recorded. */
function tellAccounts(deps: ServiceDeps, finished: readonly FinishedDelivery[]): void {
  if (!deps.notify.accountActivity) return;
  for (const accountId of new Set(finished.map((delivery) => delivery.accountId))) deps.notify.accountActivity(accountId);
}

export async function releaseDeliveries(
  deps: ServiceDeps,
  rows: readonly Pick<ClaimedDelivery, 'seq' | 'leaseExpiresAt'>[],
): Promise<void> {
  await deps.store.outbox.release(rows, deps.clock.now());
}
