import { readFileSync } from 'node:fs';
import { UsageError } from './usage-error.ts';

/** The flags that once took a secret as their value, and the file flag that takes it now. */
const SECRET_FLAGS = { 'upstream-secret': 'upstream-secret-file', secret: 'secret-file' } as const;

/**
 * Refuses a secret given on the command line: every user of the machine reads it in `ps` and it
 * stays in the shell's history.
 */
export function refuseSecretsOnCommandLine(given: readonly string[]): void {
  for (const [flag, fileFlag] of Object.entries(SECRET_FLAGS)) {
    if (given.includes(flag))
      throw new UsageError(`--${flag} would show the secret to every user of this machine (ps): give it in a file with --${fileFlag} FILE`);
  }
}

/** The secret in the file a `--…-file` flag names, without its trailing newline; undefined when the flag is not given. */
export function readSecretFlag(flag: string, file: string | undefined): string | undefined {
  if (file === undefined) return undefined;
  let value: string;
  try {
    value = readFileSync(file, 'utf8').replace(/\r?\n$/, '');
  } catch (error) {
    throw new UsageError(`--${flag}: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? String(error)})`, 'accounts');
  }
  if (value === '') throw new UsageError(`--${flag}: ${file} is empty`, 'accounts');
  return value;
}
