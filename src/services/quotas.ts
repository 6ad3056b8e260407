import { ErrorCode } from '../domain/error-codes.ts';
import { AppError } from './app-error.ts';
import type { ServiceDeps } from './deps.ts';

const MEGABYTE = 1024 * 1024;

/** Refuses (403/4031) `adding` contacts that would take the account past its quota. Call inside the creating transaction. */
export async function refuseOverContactsQuota(deps: ServiceDeps, accountId: string, adding: number): Promise<void> {
  const limit = deps.quotas.contacts;
  if (limit === 0 || adding === 0) return;
  const live = await deps.store.contacts.countLiveForUpdate(accountId);
  if (live + adding > limit) {
    throw new AppError(
      ErrorCode.quotaExceeded,
      `This account has ${live} contacts; ${adding} more would pass its limit of ${limit} (TEXTRELAY_CONTACTS_QUOTA)`,
    );
  }
}

/** How many more contacts the account may have under its quota; Infinity without one. Call inside the creating transaction. */
export async function contactsRoomLeft(deps: ServiceDeps, accountId: string): Promise<number> {
  const limit = deps.quotas.contacts;
  if (limit === 0) return Number.POSITIVE_INFINITY;
  return Math.max(0, limit - (await deps.store.contacts.countLiveForUpdate(accountId)));
}

/** Refuses (403/4031) a file of `adding` bytes that would take the account past its quota. Call inside the storing transaction. */
export async function refuseOverMediaQuota(deps: ServiceDeps, accountId: string, adding: number): Promise<void> {
  const limit = deps.quotas.mediaBytes;
  if (limit === 0) return;
  const stored = await deps.store.media.storedBytesForUpdate(accountId);
  if (stored + adding > limit) {
    const megabytes = (bytes: number) => (bytes / MEGABYTE).toFixed(1);
    throw new AppError(
      ErrorCode.quotaExceeded,
      `This account stores ${megabytes(stored)} MB of media; a ${megabytes(adding)} MB file would pass its limit of ${limit / MEGABYTE} MB (TEXTRELAY_MEDIA_QUOTA_MB)`,
    );
  }
}
