import { randomBytes } from 'node:crypto';
import type { AccountRow } from '../db/rows.ts';
import type { MediaObjectRow } from '../db/store.ts';
import { ErrorCode } from '../domain/error-codes.ts';
import { extensionOf, type MediaFetcher, type MediaKind } from '../domain/media-objects.ts';
import { servedMediaType } from '../domain/media-types.ts';
import { AppError } from './app-error.ts';
import type { ServiceDeps } from './deps.ts';
import type { ProviderAnswer } from './provider.ts';
import { pruneInBatches } from './pruning.ts';
import { refuseOverMediaQuota } from './quotas.ts';
import { inTransaction } from './transactions.ts';

/** The services' deps plus the fetcher of media URLs (the guarded outbound client). */
export type MediaDeps = ServiceDeps & { fetchMedia: MediaFetcher };

/** 32 random bytes: the id is the only thing guarding a file served without credentials. */
export function newMediaObjectId(): string {
  return randomBytes(32).toString('base64url');
}

/** Where textrelay serves a stored object: its id plus an extension, since sends want one on a media_url. */
export function mediaUrlOf(origin: string, media: Pick<MediaObjectRow, 'id' | 'contentType'>): string {
  return `${origin}/media/${media.id}.${extensionOf(media.contentType)}`;
}

/** Fetches a URL's file, or refuses (400) naming `field` and why. */
export async function fetchMediaFile(
  deps: MediaDeps,
  sourceUrl: string,
  options: { field: string; kind: MediaKind },
): Promise<{ bytes: Buffer; contentType: string }> {
  const fetched = await deps.fetchMedia(sourceUrl, options.kind);
  if (!fetched.ok) throw new AppError(ErrorCode.validation, `${options.field} ${fetched.problem}`);
  return { bytes: fetched.bytes, contentType: fetched.contentType };
}

/** Stores a fetched file for the account, within its media quota. */
export async function storeFetchedMedia(
  deps: ServiceDeps,
  account: AccountRow,
  sourceUrl: string,
  file: { bytes: Buffer; contentType: string },
): Promise<MediaObjectRow> {
  const row: MediaObjectRow = {
    id: newMediaObjectId(),
    accountId: account.id,
    sourceUrl,
    contentType: file.contentType,
    bytes: file.bytes,
    byteLength: file.bytes.length,
    remoteUrl: null,
    createdAt: deps.clock.now(),
  };
  await inTransaction(deps, async (deps) => {
    await refuseOverMediaQuota(deps, account.id, row.byteLength);
    await deps.store.media.insert(row);
  });
  return row;
}

/** Fetches a URL's file and stores it for the account; `field` names the URL in the error. Not in a transaction (it awaits). */
export async function fetchAndStoreMedia(
  deps: MediaDeps,
  account: AccountRow,
  sourceUrl: string,
  options: { field: string; kind: MediaKind },
): Promise<MediaObjectRow> {
  return storeFetchedMedia(deps, account, sourceUrl, await fetchMediaFile(deps, sourceUrl, options));
}

/** A file the provider keeps (relay mode): recorded by its URL there, no bytes. */
export async function recordRemoteMedia(
  deps: ServiceDeps,
  account: AccountRow,
  remote: { id?: string | undefined; sourceUrl: string; remoteUrl: string },
): Promise<MediaObjectRow> {
  const row: MediaObjectRow = {
    id: remote.id || newMediaObjectId(),
    accountId: account.id,
    sourceUrl: remote.sourceUrl,
    contentType: 'application/octet-stream',
    bytes: null,
    byteLength: 0,
    remoteUrl: remote.remoteUrl,
    createdAt: deps.clock.now(),
  };
  await inTransaction(deps, async (deps) => await deps.store.media.insertIfNew(row));
  return row;
}

/** A file a carrier delivered with an inbound message, kept for the line's account and served at our own media URL. */
export async function storeReceivedMedia(
  deps: ServiceDeps,
  accountId: string,
  file: { sourceUrl: string; contentType: string; bytes: Buffer },
): Promise<MediaObjectRow> {
  const row: MediaObjectRow = {
    id: newMediaObjectId(),
    accountId,
    sourceUrl: file.sourceUrl,
    contentType: file.contentType,
    bytes: file.bytes,
    byteLength: file.bytes.length,
    remoteUrl: null,
    createdAt: deps.clock.now(),
  };
  await inTransaction(deps, async (deps) => await deps.store.media.insert(row));
  return row;
}

export type MediaUploaded = { status: 'OK'; message: string; mediaObjectId: string; media_url: string };

const stringField = (body: unknown, name: string): string | undefined => {
  const value = (body as Record<string, unknown> | null)?.[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
};

/** `mediaObjects.upload`: stores the file behind `mediaUrl` and answers where textrelay serves it. */
export async function uploadMediaObject(
  deps: MediaDeps,
  account: AccountRow,
  input: { mediaUrl: string; origin: string },
): Promise<MediaUploaded | ProviderAnswer> {
  if (deps.providers) {
    const answer = await deps.providers
      .of(account)
      .call({ method: 'POST', path: '/api/upload-media-object', body: { media_url: input.mediaUrl } });
    if (answer.ok) {
      await recordRemoteMedia(deps, account, {
        id: stringField(answer.body, 'mediaObjectId'),
        sourceUrl: input.mediaUrl,
        remoteUrl: stringField(answer.body, 'media_url') ?? input.mediaUrl,
      });
    }
    return answer;
  }
  const stored = await fetchAndStoreMedia(deps, account, input.mediaUrl, { field: 'media_url', kind: 'media' });
  return {
    status: 'OK',
    message: 'Media object uploaded',
    mediaObjectId: stored.id,
    media_url: mediaUrlOf(input.origin, stored),
  };
}

/** What `GET /media/{file}` serves: the bytes, the type to serve them as, and whether only as a download. */
export type ServedMedia = { bytes: Buffer; contentType: string; attachment: boolean; fileName: string };

/** The file `GET /media/{file}` serves: `file` is the id, with or without the extension its URL carries. */
export async function findServedMedia(deps: ServiceDeps, file: string): Promise<ServedMedia | undefined> {
  const id = file.replace(/\.[A-Za-z0-9]{1,8}$/, '');
  const row = await deps.store.media.findById(id);
  // A relayed object's bytes are the provider's: it serves them at its own URL.
  if (!row?.bytes) return undefined;
  const served = servedMediaType(row.contentType);
  return { bytes: row.bytes, ...served, fileName: `${row.id}.${extensionOf(served.contentType)}` };
}

/** Drops, batch by batch, the files stored at or before `until`, except those that are a group's photo. */
export function pruneMediaObjects(deps: ServiceDeps, until: number): AsyncGenerator<number, void, void> {
  return pruneInBatches(async (afterRowid, limit) => await deps.store.media.pruneCreatedBy(until, afterRowid, limit));
}
