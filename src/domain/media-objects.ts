/** What textrelay accepts to store and serve as a media object (an upload or a group photo). */

export const MAX_MEDIA_BYTES = 5 * 1024 * 1024;

/** The kinds of file a message can carry; a group photo is an image only. */
export type MediaKind = 'media' | 'image';

const ACCEPTED_PREFIXES: Record<MediaKind, readonly string[]> = {
  media: ['image/', 'video/', 'audio/'],
  image: ['image/'],
};

export const ACCEPTED_DESCRIPTIONS: Record<MediaKind, string> = {
  media: 'an image, video or audio',
  image: 'an image',
};

/** The bare type of a Content-Type header, lower-cased ("image/png; q=1" → "image/png"). */
export function bareContentType(header: string | undefined): string {
  return (header ?? '').split(';')[0]!.trim().toLowerCase();
}

export function isAcceptedType(contentType: string, kind: MediaKind): boolean {
  return ACCEPTED_PREFIXES[kind].some((prefix) => contentType.startsWith(prefix) && contentType.length > prefix.length);
}

const EXTENSIONS: Record<string, string> = {
  'image/jpeg': 'jpg',
  'image/svg+xml': 'svg',
  'video/quicktime': 'mov',
  'audio/mpeg': 'mp3',
  'audio/mp4': 'm4a',
  'audio/x-m4a': 'm4a',
};

/**
 * The file extension of the served URL: sends refuse a media_url without one, so textrelay's own
 * URLs carry one (the subtype itself when it is a plain word, like png or mp4).
 */
export function extensionOf(contentType: string): string {
  const known = EXTENSIONS[contentType];
  if (known) return known;
  const subtype = contentType.split('/')[1] ?? '';
  return /^[a-z0-9]{1,8}$/.test(subtype) ? subtype : 'bin';
}

/** What fetching a media URL gave: the file, or why not, in words that follow "media_url ". */
export type FetchedMedia = { ok: true; contentType: string; bytes: Buffer } | { ok: false; problem: string };

/** Fetches a URL's file through the guarded outbound client, refusing other kinds and files over MAX_MEDIA_BYTES. */
export type MediaFetcher = (url: string, kind: MediaKind) => Promise<FetchedMedia>;
