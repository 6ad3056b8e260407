import type { z } from 'zod';
import { ErrorCode } from '../domain/error-codes.ts';
import { LONE_SURROGATE } from '../domain/storable-text.ts';
import { AppError } from './app-error.ts';

type Issue = z.core.$ZodIssue;

const TYPE_WORDS: Record<string, string> = {
  string: 'text',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  array: 'a list',
  object: 'an object',
};

function sizeWords(issue: Extract<Issue, { code: 'too_small' | 'too_big' }>, limit: number | bigint): string {
  const atLeast = issue.code === 'too_small';
  const bound = issue.inclusive === false ? (atLeast ? 'more than' : 'less than') : atLeast ? 'at least' : 'at most';
  if (issue.origin === 'string') return atLeast && Number(limit) === 1 ? 'must not be empty' : `must be ${bound} ${limit} characters long`;
  if (issue.origin === 'array' || issue.origin === 'set') return `must list ${bound} ${limit} entries`;
  return `must be ${bound} ${limit}`;
}

/** What a built-in check expected, said after the field's name. */
function expectation(issue: Issue): string {
  switch (issue.code) {
    case 'invalid_type':
      // zod reports no input by default; its own wording says when the field was absent.
      return issue.message.endsWith('received undefined') ? 'is required' : `must be ${TYPE_WORDS[issue.expected] ?? issue.expected}`;
    case 'invalid_value': {
      // '' stands for "none" in form bodies: not worth naming as a choice.
      const named = issue.values.filter((value) => value !== '').map(String);
      return named.length === 1 ? `must be ${named[0]}` : `must be one of: ${named.join(', ')}`;
    }
    case 'too_small':
      return sizeWords(issue, issue.minimum);
    case 'too_big':
      return sizeWords(issue, issue.maximum);
    case 'invalid_format':
      return `must be a valid ${issue.format}`;
    case 'unrecognized_keys':
      return `has unknown fields: ${issue.keys.join(', ')}`;
    default:
      return 'is not valid';
  }
}

/**
 * One problem in plain words, naming the field: our own checks write whole sentences (or, with
 * `afterFieldName`, what follows the field's name); a sentence a schema gave a built-in check
 * starts with the field's name; zod's own wording is replaced by what the field expects.
 */
function describe(issue: Issue): string {
  const field = issue.path.map(String).join('.');
  if (issue.code === 'custom') return issue.params?.afterFieldName && field !== '' ? `${field} ${issue.message}` : issue.message;
  if (field === '') return issue.message;
  const root = String(issue.path[0]);
  return issue.message.startsWith(root) ? issue.message : `${field} ${expectation(issue)}`;
}

/** A zod failure as one AppError: one sentence per problem, the most specific code wins. */
export function validationError(error: z.ZodError): AppError {
  const messages = error.issues.map(describe);
  const specific = error.issues.find(
    (issue) => issue.code === 'custom' && issue.params?.errorCode !== undefined && issue.params.errorCode !== ErrorCode.validation,
  );
  const code = specific?.code === 'custom' ? (specific.params?.errorCode as ErrorCode) : ErrorCode.validation;
  return new AppError(code, [...new Set(messages)].join('; '));
}

/** Text neither backend stores alike: a NUL (PostgreSQL refuses it) or half a surrogate pair (not UTF-8). */
function unstorableIn(text: string): string | undefined {
  if (text.includes('\u0000')) return 'the NUL character (\\u0000)';
  if (LONE_SURROGATE.test(text)) return 'an unpaired surrogate (half of a UTF-16 pair, not valid Unicode)';
  return undefined;
}

/** The first unstorable text in `value`, object keys included, as the sentence naming where it is (`field.sub[2]`). */
function unstorableTextAt(value: unknown, path: string): string | undefined {
  if (typeof value === 'string') {
    const problem = unstorableIn(value);
    return problem && `${path || 'the value'} must not contain ${problem}`;
  }
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = unstorableTextAt(item, `${path}[${index}]`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (value === null || typeof value !== 'object' || value instanceof Uint8Array) return undefined;
  for (const [key, item] of Object.entries(value)) {
    const problem = unstorableIn(key);
    if (problem) return `${path || 'the value'} must not have a key containing ${problem}`;
    const found = unstorableTextAt(item, path === '' ? key : `${path}.${key}`);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * Refuses text no phone shows and PostgreSQL cannot store (a NUL, an unpaired surrogate), in
 * values and object keys: the same 400 on both backends rather than a stored row on one and a
 * failure on the other. `asSent` gives the input before parsing renamed its fields, read only to
 * name the field as the caller spelled it.
 */
export async function refuseUnstorableText(input: unknown, asSent?: () => Promise<unknown>): Promise<void> {
  const problem = unstorableTextAt(input, '');
  if (problem === undefined) return;
  const named = asSent && unstorableTextAt(await asSent(), '');
  throw new AppError(ErrorCode.validation, named ?? problem);
}

/** The parsed input, or the AppError the API would answer for it. */
export function parseInput<Schema extends z.ZodType>(schema: Schema, input: unknown): z.output<Schema> {
  const parsed = schema.safeParse(input);
  if (!parsed.success) throw validationError(parsed.error);
  const problem = unstorableTextAt(parsed.data, '');
  if (problem !== undefined) throw new AppError(ErrorCode.validation, problem);
  return parsed.data;
}
