import type { CommandName } from './help.ts';

/** A command line that cannot run: printed with the usage of `command` (or the overview), exit code 2. */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly command?: CommandName,
  ) {
    super(message);
  }
}
