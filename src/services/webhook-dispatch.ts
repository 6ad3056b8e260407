import type { AttemptRecord, Claim, ClaimedDelivery, ClaimFilter, DeliveryOutcome, FinishedDelivery } from '../db/queries/outbox.ts';
import type { ServiceDeps } from './deps.ts';
import { getOrCreateWebhookSecret } from './webhook-settings.ts';

/** The outbox as the dispatcher works it: claim due rows, record what each attempt did, give back what it could not finish. */

export function claimDueDeliveries(
  deps: ServiceDeps,
  options: { leaseMs: number; limit: number; accept?: ClaimFilter },
): ClaimedDelivery[] {
  return deps.store.outbox.claimDue(deps.clock.now(), options.leaseMs, options.limit, options.accept);
}

/** The secret to sign a claimed row with: an account that never asked for its secret gets one now. */
export function signingSecretOf(deps: ServiceDeps, row: ClaimedDelivery): string {
  return row.webhookSecret ?? getOrCreateWebhookSecret(deps, row.accountId);
}

/** A claimed row's attempt as the outbox records it: the row, its lease, what the attempt got, and what follows. */
export function finishedDelivery(row: ClaimedDelivery, attempt: AttemptRecord, outcome: DeliveryOutcome): FinishedDelivery {
  return { seq: row.seq, accountId: row.accountId, messageHandle: row.messageHandle, url: row.url, leaseExpiresAt: row.leaseExpiresAt, attempt, outcome };
}

export function finishDeliveries(deps: ServiceDeps, finished: readonly FinishedDelivery[]): void {
  deps.store.outbox.finish(finished, deps.clock.now());
  tellAccounts(deps, finished);
}

/** After the commit: the inbox's deliveries page shows each attempt as it is recorded. */
function tellAccounts(deps: ServiceDeps, finished: readonly FinishedDelivery[]): void {
  if (!deps.notify.accountActivity) return;
  for (const accountId of new Set(finished.map((delivery) => delivery.accountId))) deps.notify.accountActivity(accountId);
}

/** Records finished attempts and claims what may go next, in one transaction (the dispatcher's tick). */
export function finishAndClaimDeliveries(deps: ServiceDeps, finished: readonly FinishedDelivery[], claim: Claim): ClaimedDelivery[] {
  const claimed = deps.store.outbox.finishAndClaim(finished, deps.clock.now(), claim);
  tellAccounts(deps, finished);
  return claimed;
}

export function releaseDeliveries(deps: ServiceDeps, rows: readonly Pick<ClaimedDelivery, 'seq' | 'leaseExpiresAt'>[]): void {
  deps.store.outbox.release(rows, deps.clock.now());
}
