import { createHmac, timingSafeEqual } from 'node:crypto';

/** How far a webhook's X-Timestamp may be from now: a captured webhook replayed later is refused. */
export const SIGNATURE_WINDOW_S = 300;

/** X-Signature for a body and X-Timestamp: lowercase hex HMAC-SHA256 of the raw body followed by the timestamp (C.4). */
export function signatureOf(signingKey: string, rawBody: string, timestamp: string): string {
  return createHmac('sha256', signingKey).update(rawBody).update(timestamp).digest('hex');
}

/**
 * Why a webhook is not the phone's, or undefined when it is: the signature is compared in
 * constant time, and a timestamp more than SIGNATURE_WINDOW_S from `nowMs` is refused.
 */
export function signatureProblem(
  signingKey: string,
  rawBody: string,
  headers: { signature: string | undefined; timestamp: string | undefined },
  nowMs: number,
): string | undefined {
  const { signature, timestamp } = headers;
  if (!signature || !timestamp) return 'missing X-Signature or X-Timestamp';
  if (!/^\d{1,12}$/.test(timestamp)) return 'X-Timestamp is not Unix seconds';
  if (Math.abs(nowMs / 1000 - Number(timestamp)) > SIGNATURE_WINDOW_S)
    return `X-Timestamp is more than ${SIGNATURE_WINDOW_S / 60} minutes from now`;
  const expected = Buffer.from(signatureOf(signingKey, rawBody, timestamp));
  const given = Buffer.from(signature.toLowerCase());
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'X-Signature does not match';
  return undefined;
}
