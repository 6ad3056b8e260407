import { parsePhoneNumberFromString } from 'libphonenumber-js';

export type PhoneCheck =
  | { ok: true; e164: string }
  | { ok: false; reason: 'blacklisted' | 'invalid' };

/**
 * Emergency numbers and carrier short codes (3-6 digits) are never valid destinations:
 * texting 911 from an API is a real-world hazard, so these get their own error code (4002)
 * rather than a generic validation failure.
 */
const SHORT_CODE = /^\+?\d{3,6}$/;

/** Accepts E.164 with common separators ("+1 (415) 555-0100") and answers the canonical E.164. */
export function checkPhoneNumber(raw: string): PhoneCheck {
  const trimmed = raw.trim();
  if (SHORT_CODE.test(trimmed.replace(/[\s\-().]/g, ''))) return { ok: false, reason: 'blacklisted' };
  if (!trimmed.startsWith('+')) return { ok: false, reason: 'invalid' };
  const parsed = parsePhoneNumberFromString(trimmed);
  if (!parsed || !parsed.isValid()) return { ok: false, reason: 'invalid' };
  return { ok: true, e164: parsed.number };
}

export function formatDisplayPhone(e164: string): string {
  return parsePhoneNumberFromString(e164)?.formatInternational() ?? e164;
}
