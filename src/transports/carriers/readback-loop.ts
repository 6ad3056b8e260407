import type { Logger } from 'pino';

/**
 * Runs a carrier's read-back pass now, then again `everyMs` after each one ends, until stopped. A
 * pass that throws is logged and the next one tries again.
 */
export function startReadBackLoop(options: { pass: () => Promise<unknown>; everyMs: number; log: Logger; label: string }) {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = false;

  function runAndSchedule(): void {
    running = options
      .pass()
      .then(() => undefined)
      .catch((error: unknown) => {
        options.log.warn(
          { reason: error instanceof Error ? error.message : String(error) },
          `${options.label} read-back failed; will try again`,
        );
      })
      .finally(() => {
        if (!stopped) timer = setTimeout(runAndSchedule, options.everyMs);
      });
  }

  runAndSchedule();
  return {
    /** Cancels the next pass and waits for the one running. */
    async stop(): Promise<void> {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
