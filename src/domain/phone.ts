import { parsePhoneNumberFromString } from 'libphonenumber-js';
import { remembering } from './remembering.ts';

export type PhoneCheck = { readonly ok: true; readonly e164: string } | { readonly ok: false; readonly reason: 'blacklisted' | 'invalid' };

/**
 * Emergency numbers and carrier short codes (3-6 digits) are never valid destinations:
 * texting 911 from an API is a real-world hazard, so these get their own error code (4002)
 * rather than a generic validation failure.
 */
const SHORT_CODE = /^\+?\d{3,6}$/;

/**
 * libphonenumber-js compiles its metadata's patterns into fresh RegExps on every parse, while a
 * gateway sees the same numbers over and over: answers are
 * remembered. Only for inputs short enough to be a formatted number, so the memory held stays
 * under a few megabytes whatever comes in.
 */
const MAX_REMEMBERED_LENGTH = 32;
const rememberedCheck = remembering(parsePhone, 20_000);

/** Accepts E.164 with common separators ("+1 (415) 555-0100") and answers the canonical E.164. */
export function checkPhoneNumber(raw: string): PhoneCheck {
  return raw.length > MAX_REMEMBERED_LENGTH ? parsePhone(raw) : rememberedCheck(raw);
}

function parsePhone(raw: string): PhoneCheck {
  const trimmed = raw.trim();
  if (SHORT_CODE.test(trimmed.replace(/[\s\-().]/g, ''))) return { ok: false, reason: 'blacklisted' };
  if (!trimmed.startsWith('+')) return { ok: false, reason: 'invalid' };
  const parsed = parsePhoneNumberFromString(trimmed);
  if (!parsed?.isValid()) return { ok: false, reason: 'invalid' };
  return { ok: true, e164: parsed.number };
}

const E164_SHAPE = /^\+[1-9]\d{1,14}$/;

/** Written as E.164 ("+", then up to 15 digits, separators aside): such a number is refused only for not existing. */
export function hasE164Shape(raw: string): boolean {
  return E164_SHAPE.test(raw.trim().replace(/[\s\-().]/g, ''));
}

/** What to say of a number written in E.164 that no numbering plan assigns (a fictional 555 number, a missing digit). */
export function notValidNumberProblem(raw: string): string {
  return `is not a valid phone number (${raw.trim()} is written in E.164, but no numbering plan assigns it)`;
}

export function formatDisplayPhone(e164: string): string {
  return parsePhoneNumberFromString(e164)?.formatInternational() ?? e164;
}

/**
 * A number as a transport may spell it, in E.164, or undefined when no reading is a valid number:
 * E.164 with separators, then the digits with their country code but no "+" (`16175550190`, or
 * after the international prefix 00, as contact imports read them), then a national number of the North American plan (`(617) 555-0190`).
 */
export function normalisePhoneSpelling(raw: string): string | undefined {
  const checked = checkPhoneNumber(raw);
  if (checked.ok) return checked.e164;
  const digits = raw
    .trim()
    .replace(/[\s\-().]/g, '')
    .replace(/^00/, '');
  if (!/^\d{7,15}$/.test(digits)) return undefined;
  const international = checkPhoneNumber(`+${digits}`);
  if (international.ok) return international.e164;
  const national = parsePhoneNumberFromString(digits, 'US');
  return national?.isValid() ? national.number : undefined;
}

const EMAIL_HANDLE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** An end user's handle as a transport reports it: an iMessage e-mail address as given (lower case), else a phone number read as above. */
export function normaliseSenderHandle(raw: string): string | undefined {
  const trimmed = raw.trim();
  return EMAIL_HANDLE.test(trimmed) ? trimmed.toLowerCase() : normalisePhoneSpelling(trimmed);
}
