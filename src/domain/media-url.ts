/**
 * media_url must be a public, unsigned link to a file: the network fetches it later, when a
 * signature or expiry may no longer hold, so signed links fail silently downstream. Refuse them here.
 */
const SIGNING_PARAMS = new Set([
  'x-amz-signature',
  'x-amz-credential',
  'x-amz-security-token',
  'x-amz-expires',
  'x-goog-signature',
  'x-goog-credential',
  'signature',
  'expires',
  'sig',
  'token',
  'se', // Azure SAS expiry
]);

const FILE_EXTENSION = /\.[A-Za-z0-9]{1,8}$/;

export type MediaUrlProblem = 'not_http' | 'no_extension' | 'signed';

export function checkMediaUrl(raw: string): MediaUrlProblem | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'not_http';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'not_http';
  for (const key of url.searchParams.keys()) {
    if (SIGNING_PARAMS.has(key.toLowerCase())) return 'signed';
  }
  if (!FILE_EXTENSION.test(url.pathname)) return 'no_extension';
  return null;
}

export function isHttpUrl(raw: string): boolean {
  try {
    const url = new URL(raw);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}
