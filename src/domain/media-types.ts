/** Which media types textrelay stores, and how it serves each: a stored file must never be served as a page. */

/** Shown by browsers as what they are, never run: served inline. */
const INLINE_TYPES = [
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
  'image/avif',
  'image/bmp',
  'video/mp4',
  'video/webm',
  'video/quicktime',
  'audio/mpeg',
  'audio/mp4',
  'audio/aac',
  'audio/ogg',
  'audio/wav',
  'audio/webm',
] as const;

/** Stored, but served as a download: a browser could run them (SVG holds script) or would not show them. */
const ATTACHMENT_TYPES = [
  'image/svg+xml',
  'image/heic',
  'image/heif',
  'image/tiff',
  'video/3gpp',
  'video/mpeg',
  'video/x-m4v',
  'audio/amr',
  'audio/3gpp',
  'audio/x-m4a',
  'audio/x-wav',
  'audio/x-caf',
  'text/vcard',
  'text/x-vcard',
] as const;

const INLINE = new Set<string>(INLINE_TYPES);
/** Every type a media object may have. */
export const ACCEPTED_MEDIA_TYPES: readonly string[] = [...INLINE_TYPES, ...ATTACHMENT_TYPES];

const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
const QUOTED = '"(?:[^"\\\\]|\\\\.)*"';
/** RFC 9110's media-type: one type/subtype, then parameters; a list of types (a comma) is not one. */
const MEDIA_TYPE = new RegExp(`^[ \\t]*(${TOKEN}/${TOKEN})(?:[ \\t]*;[ \\t]*(?:${TOKEN}=(?:${TOKEN}|${QUOTED}))?)*[ \\t]*$`);

/** The lower-cased type/subtype of a well-formed Content-Type value ("image/PNG; q=1" → "image/png"), else undefined. */
export function parseMediaType(value: string): string | undefined {
  return MEDIA_TYPE.exec(value)?.[1]?.toLowerCase();
}

/** How a stored type is served; a type stored before it was checked that is not accepted now is bytes to download. */
export function servedMediaType(stored: string): { contentType: string; attachment: boolean } {
  const type = parseMediaType(stored);
  if (type !== undefined && INLINE.has(type)) return { contentType: type, attachment: false };
  return { contentType: type !== undefined && ACCEPTED_MEDIA_TYPES.includes(type) ? type : 'application/octet-stream', attachment: true };
}
