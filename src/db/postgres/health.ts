import type { Logger } from 'pino';
import type postgres from 'postgres';
import { postgresCode } from './postgres-codes.ts';

/** How often PostgreSQL is asked whether it answers. */
const PROBE_INTERVAL_MS = 1_000;
/** A question left unanswered this long counts as the server being down. */
const UNANSWERED_MS = 5_000;

/**
 * Whether PostgreSQL answers, asked every second in the background, so that /readyz answers at
 * once without a query of its own. An outage is logged once when it begins and once when it ends
 * (requests refused meanwhile log nothing each), in lines without any statement.
 */
export function watchPostgresHealth(client: postgres.Sql, log: Logger, intervalMs = PROBE_INTERVAL_MS) {
  let healthy = true;
  let downSince = 0;
  let askedAt: number | undefined;
  const down = (reason: string) => {
    if (!healthy) return;
    healthy = false;
    downSince = Date.now();
    log.warn({ reason }, 'database unavailable: requests answer 503 (error 5003) until it is back');
  };
  const up = () => {
    if (healthy) return;
    healthy = true;
    log.info({ outageMs: Date.now() - downSince }, 'database available again');
  };
  const timer = setInterval(() => {
    if (askedAt !== undefined) {
      if (Date.now() - askedAt >= UNANSWERED_MS) down(`no answer within ${UNANSWERED_MS / 1000} s`);
      return;
    }
    askedAt = Date.now();
    client`select 1`.then(
      () => {
        askedAt = undefined;
        up();
      },
      (error: unknown) => {
        askedAt = undefined;
        down(postgresCode(error) ?? String((error as Error)?.message ?? error));
      },
    );
  }, intervalMs);
  timer.unref();
  return { isHealthy: () => healthy, stop: () => clearInterval(timer) };
}
