import type { Logger } from 'pino';
import { reportCarrierHealth } from '../../services/carrier-health.ts';
import type { ServiceDeps } from '../../services/deps.ts';
import type { Carrier } from './carrier.ts';

/** How often the serving process looks whether a carrier's health changed, and writes it down if it did. */
const REPORT_EVERY_MS = 1_000;

/**
 * Keeps each carrier's health (reachable, last error, sends, events) written down in the database
 * while textrelay serves, so `textrelay status`, another process, can show it. Only changes are written.
 */
export function startHealthReports(deps: Pick<ServiceDeps, 'store' | 'clock'> & { log: Logger }, carriers: readonly Carrier[]) {
  const written = new Map<string, string>();
  async function report(): Promise<void> {
    for (const carrier of carriers) {
      const health = carrier.health();
      const text = JSON.stringify(health);
      if (written.get(carrier.name) === text) continue;
      try {
        await reportCarrierHealth(deps, health);
        written.set(carrier.name, text);
      } catch (error) {
        deps.log.warn({ carrier: carrier.name, err: error }, "could not write down the carrier's health; will try again");
      }
    }
  }
  let running = report();
  const timer = setInterval(() => {
    running = running.then(report);
  }, REPORT_EVERY_MS).unref();
  return {
    /** Writes down the last changes and stops. */
    async stop(): Promise<void> {
      clearInterval(timer);
      await running;
      await report();
    },
  };
}
