import type { z } from 'zod';
import { ErrorCode } from '../../domain/error-codes.ts';
import { CONTENT_LENGTH_LIMIT } from '../../domain/limits.ts';
import type { AppError } from '../../services/app-error.ts';

/*
 * What a page may say after a form post. The redirect carries only a code from these tables: free
 * text in the address would let any link make the inbox say whatever its author likes.
 */

export const REPLY_ERRORS = {
  'reply-empty': 'Write something to send.',
  'reply-too-long': `A reply must be shorter than ${CONTENT_LENGTH_LIMIT} characters.`,
  'reply-sender': 'Reply as one of the people in this conversation.',
  'reply-refused': 'The reply could not be stored.',
} as const;

export const DELIVERY_NOTICES = {
  replayed: 'The delivery is queued again, under the same webhook-id.',
  'delivery-not-found': 'There is no such delivery.',
  'delivery-busy': 'That delivery is being attempted right now; replay it once the attempt has finished.',
} as const;

type Table = Record<string, string>;

/** The sentence for a code from the address; an unknown code (or none) says nothing. */
export function sentenceFor(table: Table, code: string | undefined): string | undefined {
  return code !== undefined && Object.hasOwn(table, code) ? table[code] : undefined;
}

export function withCode(path: string, key: 'error' | 'notice', code: keyof typeof REPLY_ERRORS | keyof typeof DELIVERY_NOTICES): string {
  return `${path}?${new URLSearchParams({ [key]: code })}`;
}

/** Why the composer's form was refused, by the field at fault. */
export function replyFormError(issues: readonly z.core.$ZodIssue[]): keyof typeof REPLY_ERRORS {
  const field = issues[0]?.path[0];
  if (field === 'content') return 'reply-too-long';
  if (field === 'number') return 'reply-sender';
  return field === undefined ? 'reply-empty' : 'reply-refused';
}

export function replyServiceError(error: AppError): keyof typeof REPLY_ERRORS {
  return error.code === ErrorCode.validation ? 'reply-sender' : 'reply-refused';
}

export function replayError(error: AppError): keyof typeof DELIVERY_NOTICES {
  return error.code === ErrorCode.conflict ? 'delivery-busy' : 'delivery-not-found';
}
