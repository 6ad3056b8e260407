/** What textrelay accepts to store and serve as a media object (an upload or a group photo). */

import { ACCEPTED_MEDIA_TYPES, parseMediaType } from './media-types.ts';

export const MAX_MEDIA_BYTES = 5 * 1024 * 1024;

/** The kinds of file a message can carry; a group photo is an image only. */
export type MediaKind = 'media' | 'image';

const ACCEPTED_DESCRIPTIONS: Record<MediaKind, string> = {
  media: 'an accepted image, video, audio or vCard type',
  image: 'an accepted image type',
};

/**
 * The type to store for a source's Content-Type header (a repeated header counts as a list), or
 * why not, in words that follow "media_url ".
 */
export function acceptedTypeOf(header: string | string[] | undefined, kind: MediaKind): { type: string } | { problem: string } {
  if (header === undefined) return { problem: `is of no declared type, not ${ACCEPTED_DESCRIPTIONS[kind]}` };
  const value = Array.isArray(header) ? header.join(', ') : header;
  const type = parseMediaType(value);
  if (type === undefined)
    return { problem: `has Content-Type ${JSON.stringify(value.slice(0, 200))}, which is not one well-formed media type` };
  const accepted = ACCEPTED_MEDIA_TYPES.includes(type) && (kind === 'media' || type.startsWith('image/'));
  return accepted ? { type } : { problem: `is ${type}, not ${ACCEPTED_DESCRIPTIONS[kind]}` };
}

const EXTENSIONS: Record<string, string> = {
  'image/jpeg': 'jpg',
  'image/svg+xml': 'svg',
  'video/quicktime': 'mov',
  'audio/mpeg': 'mp3',
  'audio/mp4': 'm4a',
  'audio/x-m4a': 'm4a',
  'audio/x-wav': 'wav',
  'audio/x-caf': 'caf',
  'video/x-m4v': 'm4v',
  'text/vcard': 'vcf',
  'text/x-vcard': 'vcf',
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
