import type { Logger } from 'pino';

/**
 * Runs a carrier's read-back pass now (or `everyMs` from now, when the start ran one itself), then
 * again `everyMs` after each one ends, until stopped. A pass that throws is logged, described
 * without the carrier's secrets, and the next one tries again.
 */
export function startReadBackLoop(options: {
  pass: () => Promise<unknown>;
  everyMs: number;
  log: Logger;
  label: string;
  describe: (error: unknown) => string;
  firstPassNow?: boolean;
}) {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = false;

  function schedule(): void {
    if (!stopped) timer = setTimeout(runAndSchedule, options.everyMs);
  }

  function runAndSchedule(): void {
    running = options
      .pass()
      .then(() => undefined)
      .catch((error: unknown) => {
        options.log.warn({ reason: options.describe(error) }, `${options.label} read-back failed; will try again`);
      })
      .finally(schedule);
  }

  if (options.firstPassNow ?? true) runAndSchedule();
  else schedule();
  return {
    /** Cancels the next pass and waits for the one running. */
    async stop(): Promise<void> {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
