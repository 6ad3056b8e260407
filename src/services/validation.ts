import type { z } from 'zod';
import { ErrorCode } from '../domain/error-codes.ts';
import { AppError } from './app-error.ts';

/** A zod failure as one AppError: every message in one sentence, the most specific code wins. */
export function validationError(error: z.ZodError): AppError {
  const messages = error.issues.map((issue) =>
    // Our own checks write whole sentences; zod's built-in ones need the field named.
    issue.code === 'custom' || issue.path.length === 0 ? issue.message : `${issue.path.join('.')}: ${issue.message}`,
  );
  const blacklisted = error.issues.some((issue) => issue.code === 'custom' && issue.params?.errorCode === ErrorCode.blacklisted);
  return new AppError(blacklisted ? ErrorCode.blacklisted : ErrorCode.validation, [...new Set(messages)].join('; '));
}

/** The parsed input, or the AppError the API would answer for it. */
export function parseInput<Schema extends z.ZodType>(schema: Schema, input: unknown): z.output<Schema> {
  const parsed = schema.safeParse(input);
  if (!parsed.success) throw validationError(parsed.error);
  return parsed.data;
}
